/**
 * @module report/html-report
 * One self-contained HTML file of pauses, receipts and drift (docs/design.md §12): inline CSS,
 * JS and SVG, no network, opens from disk. Pure: a {@link Report} in, HTML text out. Every value
 * from a recording or log is escaped (bidirectional controls shown as `\uXXXX`); the data the
 * page's script filters on travels as `data-*` attributes, never as script, and the page's
 * Content-Security-Policy lets only that one script run, by its hash.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from './escape-html.js';
import type { InterruptionRow } from './interruption-rows.js';
import { interruptionTable, lostInterruptionItems } from './interruption-table.js';
import { traceCell, traceItem } from './trace-link.js';

export { escapeHtml } from './escape-html.js';

/** A task state over recorded time (ms since the epoch). */
export interface LaneState {
  state: string;
  from: number;
  to: number;
}

/** A pause on a task's lane. */
export interface LanePause {
  from: number;
  /** null while open at the end. */
  to: number | null;
  initiator: 'client' | 'agent' | 'unspecified';
  reason: string | null;
  mode: string | null;
  /** How it ended (`resumed (explicit_resume)`), or null. */
  ended: string | null;
  /** A lost pause's reason (`pause_ignored`, ...). */
  lost: string | null;
  /** Times of rejected resume attempts. */
  rejected: number[];
}

export interface Lane {
  taskId: string;
  states: LaneState[];
  pauses: LanePause[];
}

/** One row of the audit view. */
export interface ReportRow {
  taskId: string;
  initiator: string;
  principal: string | null;
  reason: string | null;
  mode: string | null;
  pausedAt: string;
  /** `resumed`, `canceled`, `failed`, `open` or `lost`. */
  outcome: string;
  ended: string;
  rejected: number;
  receiptHash: string | null;
  traceId: string | null;
  spanId: string | null;
  /** `verified`, `not checked` or `failed`, and why. */
  verification: { status: 'verified' | 'not checked' | 'failed'; why: string };
  /**
   * The observer rules that proved the pause and ended it (closed it or declared it lost), worked
   * out from the recording (docs/design.md §14.8); null when only a receipt log was given.
   */
  rules: { pause: string | null; end: string | null } | null;
  /**
   * In a fleet (docs/design.md §17): the log and line that saw the pause begin (`FILE:LINE`), and
   * the one that saw it end (null while open); absent for a row of one file.
   */
  pausedIn?: string;
  endedIn?: string | null;
  /** The A2A versions of the exchanges behind its receipts, from a recording with one other than 1.0 (§14.10). */
  a2aVersions?: string[];
}

/** A row's rules as one cell: `proved by RULE; ended by RULE`, or `-` when unknown. */
function rulesText(rules: ReportRow['rules']): string {
  if (rules === null) return '-';
  const parts = [`proved by ${rules.pause ?? '-'}`];
  if (rules.end !== null) parts.push(`ended by ${rules.end}`);
  return parts.join('; ');
}

/** One compared field of a replay's drift. */
export interface DriftLine {
  path: string;
  expected: string;
  actual: string;
}

export interface ReportSection {
  /** The file as given. */
  file: string;
  kind: 'recording' | 'receipt log' | 'recording + receipt log' | 'replay' | 'fleet';
  /** A one-line verdict (`3 pauses, 1 lost`, `DRIFT`, ...). */
  verdict: string;
  /** Likely causes, said first (replay). */
  causes: string[];
  lanes: Lane[];
  rows: ReportRow[];
  drift: DriftLine[];
  /** Exchange drift, as text lines. */
  exchanges: string[];
  notes: string[];
  /** The interruptions (INPUT_REQUIRED, AUTH_REQUIRED) and how each ended (docs/design.md §14.9). */
  interruptions?: InterruptionRow[];
  /**
   * Pauses counted but not in `rows`: ended ones past the first listed of a long log (every open
   * and lost one is listed), with how many ended each way (docs/design.md §12).
   */
  unlisted?: UnlistedPauses;
}

/** Pauses a section counts but does not list, by how they ended (`resumed`, `canceled`, ...). */
export interface UnlistedPauses {
  count: number;
  outcomes: Record<string, number>;
}

/** The pauses a section holds: its rows and those it counts without listing them. */
export const pausesOf = (s: ReportSection): number => s.rows.length + (s.unlisted?.count ?? 0);

export interface Report {
  title: string;
  /** When it was made (ISO), shown in the header. */
  createdAt: string;
  sections: ReportSection[];
  /**
   * A trace backend's URL for a trace, `{traceId}` (and `{spanId}`) replaced, e.g.
   * `http://jaeger:16686/trace/{traceId}`: every span shown links there (`report --trace-url`).
   */
  traceUrl?: string;
}

const STATE_COLORS: Record<string, string> = {
  TASK_STATE_SUBMITTED: 'var(--submitted)',
  TASK_STATE_WORKING: 'var(--working)',
  TASK_STATE_PAUSED: 'var(--paused)',
  TASK_STATE_COMPLETED: 'var(--completed)',
  TASK_STATE_FAILED: 'var(--failed)',
  TASK_STATE_CANCELED: 'var(--canceled)',
  TASK_STATE_INPUT_REQUIRED: 'var(--input)',
  TASK_STATE_AUTH_REQUIRED: 'var(--input)',
};

const short = (state: string): string => state.replace(/^TASK_STATE_/, '').toLowerCase();

/** Width of `text` in the lanes' 11px monospace font, slightly over, for placing labels. */
const textWidth = (text: string): number => text.length * 6.7;

/** An instant on the time axis, in UTC, with its date when `withDate`. */
function axisTime(t: number, withDate: boolean): string {
  const iso = new Date(t).toISOString();
  return withDate ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : iso.slice(11, 23);
}

/** The time axis under the lanes: the start and end of the lane area and ticks between, in UTC. */
function timeAxis(
  start: number,
  end: number,
  x: (t: number) => number,
  y: number,
  left: number,
  right: number,
): string {
  const sameDay = new Date(start).toISOString().slice(0, 10) === new Date(end).toISOString().slice(0, 10);
  const parts = [
    `<g class="axis" data-start="${new Date(start).toISOString()}" data-end="${new Date(end).toISOString()}">`,
    `<text class="axis-label" x="4" y="${y + 17}">` +
      `${sameDay ? `${new Date(start).toISOString().slice(0, 10)} (UTC)` : 'time (UTC)'}</text>`,
    `<line class="axis-line" x1="${left}" y1="${y}" x2="${right}" y2="${y}"></line>`,
  ];
  // Times alone fit five labels; with dates, three.
  const ticks = sameDay ? 4 : 2;
  for (let i = 0; i <= ticks; i++) {
    const t = start + ((end - start) * i) / ticks;
    const at = x(t).toFixed(1);
    const anchor = i === 0 ? 'start' : i === ticks ? 'end' : 'middle';
    parts.push(`<line class="axis-tick" x1="${at}" y1="${y}" x2="${at}" y2="${y + 5}"></line>`);
    parts.push(
      `<text class="tick" text-anchor="${anchor}" x="${at}" y="${y + 17}">` +
        `${escapeHtml(axisTime(t, !sameDay))}</text>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}

function* lanesSvg(lanes: readonly Lane[]): Generator<string> {
  if (lanes.length === 0) {
    yield '<p class="empty">No task states or pauses to draw.</p>';
    return;
  }
  // A loop, not Math.min(...times): a spread of one argument per time overflows the call stack
  // past some 100,000 (a report of a long log).
  let start = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const see = (t: number): void => {
    if (t < start) start = t;
    if (t > last) last = t;
  };
  for (const lane of lanes) {
    for (const s of lane.states) {
      see(s.from);
      see(s.to);
    }
    for (const p of lane.pauses) {
      see(p.from);
      see(p.to ?? p.from);
      for (const r of p.rejected) see(r);
    }
  }
  if (start === Number.POSITIVE_INFINITY) start = last = 0;
  const end = Math.max(last, start + 1);
  const width = 900;
  const left = 190;
  const right = width - 10;
  const x = (t: number): number => left + ((t - start) / (end - start)) * (right - left);
  const rowHeight = 46;
  const axisY = 10 + lanes.length * rowHeight + 4;
  const height = axisY + 30;
  yield (
    `<svg class="lanes" viewBox="0 0 ${width} ${height}" width="100%" role="img" ` +
    `aria-label="timeline of ${lanes.length} task${lanes.length === 1 ? '' : 's'}">`
  );
  // One lane's parts at a time: the drawing of a long log is written as it is made.
  for (const [i, lane] of lanes.entries()) {
    const parts: string[] = [];
    const y = 10 + i * rowHeight;
    const task = escapeHtml(lane.taskId);
    parts.push(`<g class="lane" data-task="${task}" tabindex="0" aria-label="task ${task}">`);
    parts.push(`<title>task ${task}</title>`);
    parts.push(`<text x="4" y="${y + 16}" class="lane-label">${escapeHtml(lane.taskId.slice(0, 26))}</text>`);
    for (const s of lane.states) {
      const w = Math.max(2, x(s.to) - x(s.from));
      parts.push(
        `<rect class="state" x="${x(s.from).toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="12" ` +
          `fill="${STATE_COLORS[s.state] ?? 'var(--other)'}"><title>${escapeHtml(short(s.state))}</title></rect>`,
      );
      if (w > 48)
        parts.push(
          `<text class="state-label" x="${(x(s.from) + 3).toFixed(1)}" y="${y + 10}">` +
            `${escapeHtml(short(s.state))}</text>`,
        );
    }
    for (const p of lane.pauses) {
      const from = x(p.from);
      const to = x(p.to ?? end);
      const w = Math.max(4, to - from);
      const cls = p.lost ? 'pause lost' : `pause ${p.initiator}`;
      const label = (p.lost ? `LOST: ${p.lost}` : `${p.initiator} pause${p.reason ? `: ${p.reason}` : ''}`).slice(
        0,
        60,
      );
      const tip = [label, p.mode ? `mode ${p.mode}` : '', p.ended ? `ended ${p.ended}` : 'still open'].filter(Boolean);
      const title = `<title>${escapeHtml(tip.join(' · '))}</title>`;
      parts.push(
        `<rect class="${cls}" x="${from.toFixed(1)}" y="${y + 16}" width="${w.toFixed(1)}" height="14" rx="3">` +
          `${title}</rect>`,
      );
      const tw = textWidth(label);
      if (p.lost) {
        // A lost pause's label is a badge of its own, moved left as far as it must to stay whole
        // inside the lane area: a pause lost at the end of a recording starts near its right edge.
        const bw = tw + 8;
        const bx = Math.max(left, Math.min(from, right - bw));
        parts.push(
          `<g class="lost-badge">` +
            `<rect x="${bx.toFixed(1)}" y="${y + 15}" width="${bw.toFixed(1)}" height="16" rx="3">` +
            `${title}</rect><text class="lost-label" x="${(bx + 4).toFixed(1)}" y="${y + 27}">` +
            `${escapeHtml(label)}</text></g>`,
        );
      } else {
        // Inside the bar when it fits; else beside it (after, or before) in the text colour; else
        // on the line under it, kept inside the lane area.
        const inside = tw + 6 <= w;
        const after = to + 4 + tw <= right;
        const before = from - 4 - tw >= left;
        const lx = inside
          ? from + 3
          : after
            ? to + 4
            : before
              ? from - 4 - tw
              : Math.max(left, Math.min(from, right - tw));
        const ly = inside || after || before ? y + 27 : y + 41;
        parts.push(
          `<text class="pause-label${inside ? '' : ' outside'}" x="${lx.toFixed(1)}" y="${ly}">` +
            `${escapeHtml(label)}</text>`,
        );
      }
      for (const r of p.rejected) {
        parts.push(
          `<text class="rejected" x="${x(r).toFixed(1)}" y="${y + 42}">` +
            '✕<title>rejected resume attempt</title></text>',
        );
      }
    }
    parts.push('</g>');
    yield parts.join('');
  }
  yield timeAxis(start, end, x, axisY, left, right);
  yield '</svg>';
}

function* rowsTable(rows: readonly ReportRow[], traceUrl: string | undefined): Generator<string> {
  if (rows.length === 0) {
    yield '<p class="empty">No suspensions.</p>';
    return;
  }
  const head = [
    'task',
    'initiated by',
    'principal',
    'reason',
    'mode',
    'paused at',
    'ended',
    'rule',
    'rejected',
    'receipt',
    'span (Jaeger)',
    'verification',
  ];
  // A fleet's rows say which log saw each pause begin and end; a row of one file has no such cells.
  const fleet = rows.some((r) => r.pausedIn !== undefined);
  if (fleet) head.push('paused in', 'ended in');
  // A recording that is not all A2A 1.0 names each row's versions (docs/design.md §14.10).
  const versioned = rows.some((r) => r.a2aVersions !== undefined);
  if (versioned) head.push('A2A');
  const headRow = head.map((h) => `<th>${h}</th>`).join('');
  yield `<div class="table-wrap"><table class="rows"><thead><tr>${headRow}</tr></thead><tbody>`;
  for (const r of rows) {
    const text = (c: string): string => escapeHtml(c);
    // Every cell is escaped text but the span's, which may be a link (docs/design.md §12).
    const cells = [
      text(r.taskId),
      text(r.initiator),
      text(r.principal ?? '-'),
      text(r.reason ?? '-'),
      text(r.mode ?? '-'),
      text(r.pausedAt),
      text(r.ended),
      text(rulesText(r.rules)),
      text(String(r.rejected)),
      text(r.receiptHash ?? '-'),
      traceCell(r.traceId, r.spanId, traceUrl),
      text(`${r.verification.status}${r.verification.why ? ` (${r.verification.why})` : ''}`),
      ...(fleet ? [text(r.pausedIn ?? '-'), text(r.endedIn ?? '-')] : []),
      ...(versioned ? [text(r.a2aVersions?.join('+') ?? '-')] : []),
    ].map((html, i) => `<td class="c${i}">${html}</td>`);
    const cls = r.outcome === 'lost' ? ' class="lost-row"' : '';
    yield (
      `<tr${cls} tabindex="0" data-task="${escapeHtml(r.taskId)}" data-initiator="${escapeHtml(r.initiator)}" ` +
      `data-outcome="${escapeHtml(r.outcome)}">${cells.join('')}</tr>`
    );
  }
  yield '</tbody></table></div>';
}

function driftTable(drift: readonly DriftLine[]): string {
  if (drift.length === 0) return '';
  const rows = drift.map(
    (d) =>
      `<tr><td>${escapeHtml(d.path)}</td><td class="expected">${escapeHtml(d.expected)}</td>` +
      `<td class="actual">${escapeHtml(d.actual)}</td></tr>`,
  );
  return (
    '<h3>Receipts: expected vs actual</h3><div class="table-wrap"><table class="drift"><thead><tr><th>path</th>' +
    `<th>expected</th><th>actual</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
  );
}

/** A file's section, in pieces (the lanes and rows one by one), lines as before joined by newlines. */
function* section(s: ReportSection, index: number, traceUrl: string | undefined): Generator<string> {
  const list = (items: readonly string[], cls: string): string =>
    items.length === 0 ? '' : `<ul class="${cls}">${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
  yield `<section class="file" id="file-${index}" data-kind="${escapeHtml(s.kind)}">\n`;
  yield `<h2>${escapeHtml(s.file)} <span class="kind">${escapeHtml(s.kind)}</span></h2>\n`;
  yield `<p class="verdict">${escapeHtml(s.verdict)}</p>\n`;
  yield `${s.causes.length > 0 ? `<h3>Likely cause</h3>${list(s.causes, 'causes')}` : ''}\n`;
  yield `${driftTable(s.drift)}\n`;
  yield `${s.exchanges.length > 0 ? `<h3>Exchanges that drifted</h3>${list(s.exchanges, 'exchanges')}` : ''}\n`;
  if (s.lanes.length > 0) {
    yield '<h3>Tasks over time</h3>';
    yield* lanesSvg(s.lanes);
  }
  yield '\n';
  if (s.rows.length > 0 || s.kind !== 'replay') {
    yield '<h3>Who paused what, when, why</h3>';
    yield* rowsTable(s.rows, traceUrl);
  }
  yield* interruptionTable(s.interruptions ?? [], traceUrl);
  yield `\n${list(s.notes, 'notes')}\n</section>`;
}

/**
 * The lost pauses of every section, listed first: the thing a reader must not miss. Each names its
 * task, since when it has been paused, why it is lost, who paused it and why, and its file. One
 * item at a time: a long log can leave 100,000 pauses lost.
 */
function* lostList(sections: readonly ReportSection[], traceUrl: string | undefined): Generator<string> {
  let count = 0;
  for (const s of sections) for (const r of s.rows) if (r.outcome === 'lost') count++;
  const interrupted = lostInterruptionCount(sections);
  if (count === 0 && interrupted === 0) {
    yield '<p class="no-lost">No lost pauses.</p>';
    return;
  }
  const heading = [
    count > 0 ? plural(count, 'lost pause') : '',
    interrupted > 0 ? plural(interrupted, 'lost interruption') : '',
  ]
    .filter(Boolean)
    .join(', ');
  yield `<section class="lost-top" aria-label="lost pauses"><h2>${heading}</h2><ul>`;
  for (const [index, s] of sections.entries()) {
    for (const r of s.rows) {
      if (r.outcome !== 'lost') continue;
      yield (
        `<li class="lost-item" data-task="${escapeHtml(r.taskId)}"><span class="badge">LOST</span> ` +
        `task <code>${escapeHtml(r.taskId)}</code> · paused since <time>${escapeHtml(r.pausedAt)}</time> · ` +
        `why: <strong>${escapeHtml(r.ended.replace(/^LOST: /, ''))}</strong>` +
        `${r.rules?.end ? ` by rule <code class="rule">${escapeHtml(r.rules.end)}</code>` : ''} · ` +
        `${escapeHtml(r.initiator)} pause` +
        `${r.reason ? ` (${escapeHtml(r.reason)})` : ''} · ` +
        traceItem(traceUrl, r.traceId, r.spanId) +
        `<a href="#file-${index}">${escapeHtml(s.file)}</a></li>`
      );
    }
    yield* lostInterruptionItems(s.interruptions ?? [], s.file, index, traceUrl);
  }
  yield '</ul></section>';
}

const CSS = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--submitted:#8c959f;--working:#54aeff;--paused:#d4a72c;
--completed:#4ac26b;--failed:#cf222e;--canceled:#6e7781;--input:#bf8700;--other:#afb8c1;
--client:#0969da;--agent:#8250df;--lost:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;
--client:#4493f8;--agent:#ab7df8;--lost:#f85149}
}
body{font:14px/1.45 system-ui,sans-serif;background:var(--bg);color:var(--fg);margin:0 24px 48px}
header{position:sticky;top:0;background:var(--bg);padding:12px 0;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 4px}
h3{font-size:14px;margin:16px 0 6px;color:var(--muted)}
.kind{font-weight:normal;color:var(--muted);font-size:13px}.verdict{font-weight:600}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;word-break:break-all}
th{word-break:normal;white-space:nowrap}.table-wrap{overflow-x:auto}
tr:focus{outline:2px solid var(--client)}tr.lost-row td,tr.lost-interruption-row td{color:var(--lost);font-weight:600}
td.expected{background:rgba(207,34,46,.08)}td.actual{background:rgba(74,194,107,.10)}
svg.lanes{max-width:1100px;border:1px solid var(--line);border-radius:6px}
.lane-label,.state-label,.pause-label{font:11px ui-monospace,monospace;fill:var(--fg)}.state-label{fill:#000}
.pause.client{fill:var(--client)}.pause.agent{fill:var(--agent)}.pause.unspecified{fill:var(--muted)}
.pause.lost{fill:var(--lost)}
.pause-label{fill:#fff;pointer-events:none}.pause-label.outside{fill:var(--fg)}
.lost-badge rect{fill:var(--lost)}.lost-label{font:600 11px ui-monospace,monospace;fill:#fff;pointer-events:none}
.axis-line,.axis-tick{stroke:var(--muted)}.tick,.axis-label{font:10.5px ui-monospace,monospace;fill:var(--muted)}
.lost-top{border:2px solid var(--lost);border-radius:6px;padding:4px 14px;margin-top:16px}
.lost-top h2{color:var(--lost);margin:6px 0}.lost-top ul{margin:4px 0 8px;padding-left:18px}
.lost-item{margin:3px 0}.lost-item a{color:inherit}
.badge{background:var(--lost);color:#fff;font-weight:700;padding:0 6px;border-radius:3px;letter-spacing:.04em}
.no-lost{color:var(--muted);margin-top:16px}.rejected{fill:var(--lost);font-size:13px}
.lane:focus{outline:2px solid var(--client)}.hidden{display:none}.causes li{color:var(--lost);font-weight:600}
.filters label{margin-right:12px}.empty{color:var(--muted)}.legend span{margin-right:12px}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:middle}`;

const SCRIPT = `
(function(){
  var byId=function(id){return document.getElementById(id);};
  var f={task:byId('f-task'),initiator:byId('f-initiator'),outcome:byId('f-outcome')};
  function apply(){
    var t=f.task.value.trim(),i=f.initiator.value,o=f.outcome.value;
    document.querySelectorAll('tr[data-task]').forEach(function(r){
      var show=(!t||r.dataset.task.indexOf(t)>=0)&&(!i||r.dataset.initiator===i)&&(!o||r.dataset.outcome===o);
      r.classList.toggle('hidden',!show);
    });
    document.querySelectorAll('g.lane').forEach(function(g){
      g.classList.toggle('hidden',!!t&&g.dataset.task.indexOf(t)<0);
    });
  }
  Object.keys(f).forEach(function(k){f[k].addEventListener('input',apply);});
  document.addEventListener('keydown',function(e){
    if(e.target&&(e.target.tagName==='INPUT'||e.target.tagName==='SELECT'))return;
    if(e.key==='/'){e.preventDefault();f.task.focus();return;}
    if(e.key!=='j'&&e.key!=='k')return;
    var all=document.querySelectorAll('tr[data-task]');
    var rows=Array.prototype.filter.call(all,function(r){return !r.classList.contains('hidden');});
    if(rows.length===0)return;
    var at=rows.indexOf(document.activeElement);
    var next=e.key==='j'?Math.min(rows.length-1,at+1):Math.max(0,at-1);
    rows[next].focus();
  });
})();`;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The Content-Security-Policy source that lets exactly `script` run inline: its SHA-256, so no
 * other inline script (one a value smuggled past escaping, say) would.
 */
export function scriptHashSource(script: string): string {
  return `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;
}

/** The whole report as one HTML document. */
export function renderHtmlReport(report: Report): string {
  return [...htmlReportChunks(report)].join('');
}

/**
 * The report's HTML in pieces, in order (one lane, one row at a time), so a writer can put a
 * report of any length on disk without ever holding it as one text.
 */
export function* htmlReportChunks(report: Report): Generator<string> {
  const files = report.sections.reduce((n, s) => n + (s.kind === 'recording + receipt log' ? 2 : 1), 0);
  const pauses = report.sections.reduce((n, s) => n + pausesOf(s), 0);
  let lost = 0;
  for (const s of report.sections) for (const r of s.rows) if (r.outcome === 'lost') lost++;
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src ${scriptHashSource(SCRIPT)}">
<title>${escapeHtml(report.title)}</title><style>${CSS}</style></head>
<body><header><h1>${escapeHtml(report.title)}</h1>
<p class="summary">${plural(files, 'file')} · ${plural(pauses, 'pause')} ·
<strong class="lost-count">${lost} lost</strong>${interruptionSummary(report.sections)} ·
made ${escapeHtml(report.createdAt)}</p>
<p class="legend"><span><i style="background:var(--client)"></i>client pause</span><span>
<i style="background:var(--agent)"></i>agent pause</span><span><i style="background:var(--lost)"></i>lost pause</span>
<span>✕ rejected resume</span><span>keys: / filter, j/k rows</span></p>
<p class="filters"><label>task <input id="f-task" placeholder="id contains"></label>
<label>initiator <select id="f-initiator"><option value="">any</option><option>client</option><option>agent</option>
<option>unspecified</option></select></label>
<label>outcome <select id="f-outcome"><option value="">any</option><option>resumed</option><option>canceled</option>
<option>failed</option><option>open</option><option>lost</option></select></label></p>
</header>
<main>`;
  yield* lostList(report.sections, report.traceUrl);
  yield '\n';
  for (const [i, s] of report.sections.entries()) {
    if (i > 0) yield '\n';
    yield* section(s, i, report.traceUrl);
  }
  yield `</main>
<script>${SCRIPT}</script></body></html>
`;
}

function lostInterruptionCount(sections: readonly ReportSection[]): number {
  let n = 0;
  for (const s of sections) for (const r of s.interruptions ?? []) if (r.outcome === 'lost') n++;
  return n;
}

/** ` · N interruptions, M lost` in the header, when any section has interruptions. */
function interruptionSummary(sections: readonly ReportSection[]): string {
  const total = sections.reduce((n, s) => n + (s.interruptions?.length ?? 0), 0);
  if (total === 0) return '';
  const lost = lostInterruptionCount(sections);
  return ` · ${plural(total, 'interruption')}, <strong class="lost-count">${lost} lost</strong>`;
}
