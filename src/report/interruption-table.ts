/**
 * @module report/interruption-table
 * The report's interruptions (docs/design.md §12, §14.9) as HTML: a table of who was asked what
 * (the task, the state it asked for, the hash of its prompt) and who answered, how and when; and
 * the lost ones as items of the report's lost box, with their reason, rule and trace link.
 */
import { escapeHtml } from './escape-html.js';
import type { InterruptionRow } from './interruption-rows.js';
import { traceCell, traceItem } from './trace-link.js';

const asked = (state: string): string =>
  state === 'TASK_STATE_AUTH_REQUIRED' ? 'authorization' : state === 'TASK_STATE_INPUT_REQUIRED' ? 'input' : state;

function endedText(r: InterruptionRow): string {
  if (r.outcome === 'lost') return `LOST: ${r.lost ?? '-'}${r.rule ? ` (rule ${r.rule})` : ''}`;
  if (r.outcome === 'open') return 'still open';
  return [`continued (${r.cause ?? '-'})`, r.continuedAt ? `at ${r.continuedAt}` : ''].filter(Boolean).join(' ');
}

/** The interruptions of a section, one row each; nothing when there are none. */
export function* interruptionTable(rows: readonly InterruptionRow[], traceUrl: string | undefined): Generator<string> {
  if (rows.length === 0) return;
  yield '<h3>Who was asked for input, and who answered</h3>';
  const head = ['task', 'asked for', 'prompt', 'since', 'ended', 'answered by', 'answer', 'receipt', 'span (Jaeger)'];
  const versioned = rows.some((r) => r.a2aVersions !== undefined);
  if (versioned) head.push('A2A');
  const headRow = head.map((h) => `<th>${h}</th>`).join('');
  yield `<div class="table-wrap"><table class="interruptions"><thead><tr>${headRow}</tr></thead><tbody>`;
  for (const r of rows) {
    const cells = [
      r.taskId,
      asked(r.state),
      r.promptHash ?? '-',
      r.interruptedAt,
      endedText(r),
      r.continuedBy ?? '-',
      r.inputHash ?? '-',
      r.receiptHash,
    ].map((c, i) => `<td class="c${i}">${escapeHtml(c)}</td>`);
    cells.push(`<td class="c8">${traceCell(r.traceId, r.spanId, traceUrl)}</td>`);
    if (versioned) cells.push(`<td class="c9">${escapeHtml(r.a2aVersions?.join('+') ?? '-')}</td>`);
    const cls = r.outcome === 'lost' ? ' class="lost-interruption-row"' : '';
    yield (
      `<tr${cls} tabindex="0" data-task="${escapeHtml(r.taskId)}" data-kind="interruption" ` +
      `data-outcome="${escapeHtml(r.outcome)}">${cells.join('')}</tr>`
    );
  }
  yield '</tbody></table></div>';
}

/** The lost interruptions of a section as items of the lost box. */
export function* lostInterruptionItems(
  rows: readonly InterruptionRow[],
  file: string,
  index: number,
  traceUrl: string | undefined,
): Generator<string> {
  for (const r of rows) {
    if (r.outcome !== 'lost') continue;
    yield (
      `<li class="lost-item lost-interruption" data-task="${escapeHtml(r.taskId)}"><span class="badge">LOST</span> ` +
      `task <code>${escapeHtml(r.taskId)}</code> · asked for ${escapeHtml(asked(r.state))} since ` +
      `<time>${escapeHtml(r.interruptedAt)}</time> · why: <strong>${escapeHtml(r.lost ?? '-')}</strong>` +
      `${r.rule ? ` by rule <code class="rule">${escapeHtml(r.rule)}</code>` : ''}` +
      `${r.promptHash ? ` · prompt <code>${escapeHtml(r.promptHash)}</code>` : ''} · ` +
      traceItem(traceUrl, r.traceId, r.spanId) +
      `<a href="#file-${index}">${escapeHtml(file)}</a></li>`
    );
  }
}
