/**
 * @module replay/reporters/text
 * The human-readable replay report: one status line per recording; for drift, the receipt paths
 * with expected and actual values, each exchange drift with its recorded neighbour, a per-task
 * timeline of states, and the volatile fields that were ignored. Colour only when asked (the CLI
 * asks on a TTY without NO_COLOR). Long lists are cut with a count of what was left out. Every
 * line goes through `printable`: what the peer under test answered (states, causes, messages) can
 * neither act on the terminal nor print a line of its own.
 */
import type { JsonValue } from '../../canonical/canonical-json.js';
import type { ReceiptDifference } from '../diff.js';
import type { DriftEntryRef, ExchangeDrift } from '../drift.js';
import { printable } from '../../printable.js';
import type { RecordingResult, RunSummary } from '../result.js';

export interface TextReportOptions {
  color?: boolean;
  /** Most items listed per section (default 20). */
  limit?: number;
}

type Paint = (code: number, text: string) => string;

function painter(color: boolean): Paint {
  return color ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

function value(v: JsonValue | undefined): string {
  if (v === undefined) return '(absent)';
  const text = JSON.stringify(v);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function where(ref: DriftEntryRef): string {
  const what = ref.method ? `${ref.method} ${ref.kind}` : ref.kind;
  return `seq ${ref.seq} ${what}${ref.lane ? ` [${ref.lane}]` : ''}`;
}

/** One line for an exchange drift. */
export function describeDrift(d: ExchangeDrift): string {
  switch (d.type) {
    case 'mismatch':
      return `${where(d.expected)}: ${d.differences.join(', ')} (expected ${d.expected.shape}, got ${d.actual.shape})`;
    case 'missing':
      return `${where(d.expected)} missing: ${d.expected.shape} — ${d.reason}`;
    case 'extra':
      if (!d.closest) return `extra live ${d.actual.shape} (live seq ${d.actual.seq}) with no recorded counterpart`;
      return (
        `extra live ${d.actual.shape} (live seq ${d.actual.seq}); closest recorded: ` +
        `${where(d.closest)} ${d.closest.shape}` +
        (d.differences.length ? ` — differs in ${d.differences.join(', ')}` : ' — same shape, one too many')
      );
    case 'timeout':
      return (
        `${where(d.request)} waited ${d.waitedMs} ms for ${where(d.waitingFor)} ` +
        `(${d.waitingFor.shape}) that never came`
      );
    case 'timing': {
      const on = d.clock === 'peer' ? " on the peer's clock" : '';
      return (
        `${where(d.expected)}: timing drift: the poll loop (${d.reads} read${d.reads === 1 ? '' : 's'}) ended in ` +
        `${d.actualState} after ${d.replayedMs} ms${on}; recorded: ${d.expectedState} after ${d.recordedMs} ms`
      );
    }
    default: {
      const never: never = d;
      return never;
    }
  }
}

export function describeDifference(d: ReceiptDifference): string {
  return `${d.path}: expected ${value(d.expected)}, actual ${value(d.actual)}`;
}

function list<T>(items: readonly T[], limit: number, render: (item: T) => string, indent: string): string[] {
  const lines = items.slice(0, limit).map((i) => `${indent}${render(i)}`);
  if (items.length > limit) lines.push(`${indent}... and ${items.length - limit} more`);
  return lines;
}

/**
 * An error message's own lines (a peer command's stderr follows its failure), the ones after the
 * first indented: no line of it can pass for a status or summary line.
 */
function messageLines(message: string): string[] {
  return message.split('\n').map((line, i) => (i === 0 ? line : `    ${line}`));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The report of one recording. */
export function renderRecordingText(r: RecordingResult, options: TextReportOptions = {}): string {
  const paint = painter(options.color ?? false);
  const limit = options.limit ?? 20;
  const receiptCount = r.receipts
    ? `, ${r.receipts.actualReceipts} receipt${r.receipts.actualReceipts === 1 ? '' : 's'}`
    : '';
  const stats = `(${r.exchanges} exchanges${receiptCount}, ${seconds(r.durationMs)})`;
  const lines: string[] = [];
  let label: { code: number; text: string };
  switch (r.outcome) {
    case 'match':
      label = { code: 32, text: 'PASS   ' };
      lines.push(`${label.text} ${r.recording} ${stats}`);
      break;
    case 'updated':
      label = { code: 36, text: 'UPDATED' };
      lines.push(
        `${label.text} ${r.golden} ` +
          `${r.update?.created ? '(created)' : `(${r.update?.changes.length ?? 0} changes)`} ${stats}`,
      );
      lines.push(...list(r.update?.changes ?? [], limit, describeDifference, '    '));
      break;
    case 'drift':
      label = { code: 31, text: 'DRIFT  ' };
      lines.push(`${label.text} ${r.recording} ${stats}`);
      break;
    case 'malformed':
      label = { code: 33, text: 'INVALID' };
      lines.push(...messageLines(`${label.text} ${r.recording}: ${r.error?.message ?? 'malformed input'}`));
      break;
    case 'infrastructure':
      label = { code: 35, text: 'ERROR  ' };
      lines.push(...messageLines(`${label.text} ${r.recording}: ${r.error?.message ?? 'infrastructure failure'}`));
      break;
    case 'stopped':
      label = { code: 33, text: 'STOPPED' };
      lines.push(...messageLines(`${label.text} ${r.recording}: ${r.error?.message ?? 'stopped'} ${stats}`));
      break;
    default: {
      const never: never = r.outcome;
      return never;
    }
  }
  if (r.outcome === 'drift' || r.outcome === 'infrastructure')
    for (const cause of r.causes) lines.push(`  likely cause: ${cause}`);
  const diffs = r.receipts?.differences ?? [];
  if (diffs.length > 0) {
    lines.push(`  receipts differ from ${r.golden}${r.receipts?.strict ? ' (strict: bytes)' : ''}:`);
    lines.push(...list(diffs, limit, describeDifference, '    '));
  }
  if (r.drift.length > 0 && r.outcome !== 'infrastructure') {
    lines.push(`  exchanges drifted (${r.drift.length}):`);
    lines.push(...list(r.drift, limit, describeDrift, '    '));
  }
  if (r.outcome === 'drift') {
    for (const t of r.timelines.slice(0, limit)) {
      lines.push(`  timeline ${t.lane}:`);
      lines.push(`    expected: ${t.expected.join(' → ') || '(no states)'}`);
      lines.push(`    actual:   ${t.actual.join(' → ') || '(no states)'}`);
    }
  }
  if (r.receipts && r.receipts.ignored.length > 0) {
    lines.push(`  ignored volatile fields: ${r.receipts.ignored.map((i) => `${i.field} (${i.count})`).join(', ')}`);
  }
  for (const note of r.notes) lines.push(`  note: ${note}`);
  const safe = lines.map(printable);
  safe[0] = `${paint(label.code, label.text)}${(safe[0] ?? '').slice(label.text.length)}`;
  return safe.join('\n');
}

/** The closing summary line. */
export function renderSummaryLine(summary: RunSummary): string {
  const counts = new Map<string, number>();
  for (const r of summary.results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const parts = [...counts].map(([outcome, n]) => `${n} ${outcome}`);
  const n = summary.results.length;
  return (
    `${n} recording${n === 1 ? '' : 's'}: ${parts.join(', ') || 'none'} (exit ` +
    `${summary.exitCode}) in ${seconds(summary.durationMs)}`
  );
}

/** The whole report. */
export function renderText(summary: RunSummary, options: TextReportOptions = {}): string {
  return [...summary.results.map((r) => renderRecordingText(r, options)), renderSummaryLine(summary)].join('\n');
}
