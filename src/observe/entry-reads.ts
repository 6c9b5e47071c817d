/**
 * @module observe/entry-reads
 * Pure reads made of raw input before it is trusted: whether an entry has the recording-format
 * shape, and which task a call or an unparsed payload names.
 */
import type { MethodCall } from '../protocol/params.js';
import { isRecord } from '../protocol/read.js';
import { ENTRY_KINDS, type RecordingEntry } from '../recording/format.js';

/** Why `entry` is not a recording entry (docs/design.md §5), as `field: expectation`; undefined when it is one. */
export function entryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'an entry must be an object';
  if (typeof entry.seq !== 'number' || !Number.isInteger(entry.seq) || entry.seq < 1)
    return 'seq: expected a positive integer';
  if (typeof entry.at !== 'string' || (!isPlainUtcInstant(entry.at) && Number.isNaN(Date.parse(entry.at))))
    return 'at: expected an ISO 8601 time';
  if (typeof entry.xid !== 'string' || entry.xid === '') return 'xid: expected a non-empty string';
  if (!(ENTRY_KINDS as readonly unknown[]).includes(entry.kind))
    return `kind: expected one of ${ENTRY_KINDS.join(', ')}`;
  if (!isRecord(entry.http) || typeof entry.http.method !== 'string' || typeof entry.http.path !== 'string') {
    return 'http: expected {method, path}';
  }
  return undefined;
}

/** The digit at `i` of `text` (0 to 9), or -1 when that character is no digit. */
function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** The two-digit number at `i` of `text`, or -1 when either character is no digit. */
function twoDigits(text: string, i: number): number {
  const tens = digit(text, i);
  const ones = digit(text, i + 1);
  return tens < 0 || ones < 0 ? -1 : tens * 10 + ones;
}

/**
 * Whether `text` is `YYYY-MM-DDTHH:MM:SS.sssZ` (what the recorder writes as `at`) with a month
 * 01 to 12, a day 01 to 28, an hour to 23 and minutes and seconds to 59: a time `Date.parse`
 * always reads, found without parsing it. False says nothing: any other text is left to
 * `Date.parse`, so an entry's `at` is accepted exactly as before, only sooner.
 */
export function isPlainUtcInstant(text: string): boolean {
  if (text.length !== 24) return false;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':') return false;
  if (text[19] !== '.' || text[23] !== 'Z') return false;
  if (twoDigits(text, 0) < 0 || twoDigits(text, 2) < 0 || twoDigits(text, 20) < 0 || digit(text, 22) < 0) return false;
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (month < 1 || month > 12 || day < 1 || day > 28) return false;
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;
}

/**
 * Why a reading of `entry` cannot see all the peer sent, or undefined when it can (docs/design.md
 * §5, §14): the recorder could not read the answer (`incomplete`), or the entry keeps the head of a
 * body (`cut`) with no whole `body` beside it (the recorder's own listener gets the whole).
 */
export function entryIncompleteness(entry: RecordingEntry): { field: 'incomplete' | 'cut'; why: string } | undefined {
  if (typeof entry.incomplete === 'string')
    return { field: 'incomplete', why: `the recorder could not read it: ${entry.incomplete}` };
  if (entry.cut !== undefined && entry.body === undefined)
    return {
      field: 'cut',
      why:
        `the recording keeps the first part of its ${entry.cut.bytes}-byte body only (${entry.cut.sha256}); ` +
        'the recorder observed it whole, so its receipt log holds what it showed',
    };
  return undefined;
}

/** The task a parsed call names (`taskId`, `id` or `message.taskId`), if its method names one. */
export function taskIdOfCall(call: MethodCall | undefined): string | undefined {
  if (!call) return undefined;
  switch (call.method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return call.params.message.taskId;
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return call.params.id;
    case 'PauseTask':
    case 'ResumeTask':
    case 'AwaitTaskResumption':
      return call.params.taskId;
    case 'ListTasks':
    case 'AdvanceClock':
    case 'FireEvent':
    case 'GetClock':
      return undefined;
    default: {
      const never: never = call;
      return never;
    }
  }
}

/** Best-effort task id from unparsed params or results, for findings. */
export function taskIdFromRaw(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ['taskId', 'id'] as const) {
    const v = value[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  for (const member of ['statusUpdate', 'artifactUpdate', 'task'] as const) {
    const inner = value[member];
    if (isRecord(inner)) return taskIdFromRaw(inner);
  }
  return undefined;
}
