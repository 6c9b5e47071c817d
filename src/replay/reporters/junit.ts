/**
 * @module replay/reporters/junit
 * `--junit FILE`: JUnit XML (the Ant/Surefire dialect CI servers read) with one `<testcase>` per
 * recording. Drift is a `<failure>`, malformed input, infrastructure failures and a stopped run are `<error>`s;
 * the body of each is the text report of that recording. Text is escaped for XML 1.0, and
 * characters XML 1.0 cannot carry are replaced.
 */
import type { RecordingResult, RunSummary } from '../result.js';
import { renderRecordingText } from './text.js';

/** Characters XML 1.0 cannot carry (controls other than TAB, LF, CR; lone surrogates; U+FFFE/F). */
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Escapes text for XML 1.0 content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function time(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function testcase(r: RecordingResult): string {
  const open = `    <testcase classname="a2a-replay.run" name="${escapeXml(r.recording)}" time="${time(r.durationMs)}"`;
  const body = escapeXml(renderRecordingText(r, { color: false, limit: 200 }));
  switch (r.outcome) {
    case 'match':
      return `${open}/>`;
    case 'updated':
      return `${open}>\n      <system-out>${body}</system-out>\n    </testcase>`;
    case 'drift': {
      const n = (r.receipts?.differences.length ?? 0) + r.drift.length;
      return (
        `${open}>\n      <failure type="drift" message="${n} difference${n === 1 ? '' : 's'} ` +
        `from the recording">${body}</failure>\n    </testcase>`
      );
    }
    case 'malformed':
    case 'infrastructure':
    case 'stopped':
      return (
        `${open}>\n      <error type="${r.outcome}" ` +
        `message="${escapeXml(r.error?.message ?? r.outcome)}">${body}</error>\n    </testcase>`
      );
    default: {
      const never: never = r.outcome;
      return never;
    }
  }
}

export function renderJunit(summary: RunSummary): string {
  const tests = summary.results.length;
  const failures = summary.results.filter((r) => r.outcome === 'drift').length;
  const errors = summary.results.filter((r) => ['malformed', 'infrastructure', 'stopped'].includes(r.outcome)).length;
  const attrs =
    `name="a2a-replay run" tests="${tests}" failures="${failures}" errors="${errors}" ` +
    `skipped="0" time="${time(summary.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attrs}>`,
    `  <testsuite ${attrs}>`,
    ...summary.results.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
