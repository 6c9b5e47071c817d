/**
 * @module cli/record-flags
 * `record`'s words for what the recorder says (src/record): a recorder names its options as
 * `startRecorder` spells them (`rotateBytes`, and `` `force` `` inside a message); the command
 * names its flags (`--rotate-bytes`, `--force`). Its errors become usage errors (exit 2), and its
 * progress events the lines `record` prints.
 */
import { A2aReplayError } from '../src/public/core.js';
import { type RecordSummary, type RecorderEvent, RecorderOptionError } from '../src/public/record.js';
import { CliExit, EXIT } from './io.js';

/** `rotateBytes` → `--rotate-bytes`. */
export function flagOf(option: string): string {
  return `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** `text` with each option it quotes (`` `force` ``) named as its flag. */
export function inFlags(text: string): string {
  return text.replace(/`([a-z][A-Za-z]*)`/g, (_, option: string) => flagOf(option));
}

/** A recorder option refused (or a recorder that could not start), as a usage error naming the flag. */
export function usageFailure(error: unknown): never {
  if (error instanceof RecorderOptionError)
    throw new CliExit(EXIT.usage, `${error.options.map(flagOf).join(', ')}: ${inFlags(error.detail)}`);
  if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, inFlags(error.message));
  throw error;
}

/** The line `record` prints for a progress event, or undefined for one said otherwise. */
export function progressLine(event: RecorderEvent): string | undefined {
  switch (event.kind) {
    case 'pause': {
      const reason = event.reason === null ? '' : `: ${JSON.stringify(event.reason)}`;
      return (
        `paused task ${event.taskId} by the ${event.initiatedBy} (${event.principal ?? 'no principal'}) ` +
        `via ${event.via}${reason}`
      );
    }
    case 'resume': {
      const verb = event.outcome === 'resumed' ? 'resumed' : `resume ${event.outcome}:`;
      return `${verb} task ${event.taskId} by ${event.principal ?? 'no principal'} (cause ${event.cause})`;
    }
    case 'lost-pause':
      return `lost pause of task ${event.taskId ?? '-'}: ${event.message}`;
    case 'not-understood':
    case 'unread':
      // Said at once as a warning by the recorder itself.
      return undefined;
    default: {
      const never: never = event;
      return never;
    }
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The closing summary line: what was recorded and where. */
export function summaryLine(summary: RecordSummary): string {
  const what = [plural(summary.exchanges, 'exchange')];
  const receipts = summary.receiptFiles?.join(', ');
  if (receipts !== undefined)
    what.push(
      plural(summary.pauses, 'pause'),
      plural(summary.resumes, 'resume'),
      plural(summary.receipts, 'receipt'),
      plural(summary.lostPauses, 'lost pause'),
    );
  const recording = summary.recordingFiles.join(', ');
  const written = receipts === undefined ? recording : `${recording} and ${receipts}`;
  if (summary.notUnderstood > 0) what.push(`${summary.notUnderstood} NOT UNDERSTOOD`);
  if (summary.unread > 0) what.push(`${summary.unread} UNREAD`);
  const unkeyed = receipts === undefined ? ' (no key: no receipts)' : '';
  return `stopped: ${what.join(', ')}${unkeyed}; wrote ${written}`;
}
