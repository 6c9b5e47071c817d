/**
 * @module cli/commands/lost
 * `a2a-replay lost FILE`: the pauses that never came back (docs/design.md §7 `LostPause`), from a
 * recording (the PauseObserver's verdicts) or a receipt log (suspensions no resumption closed).
 * Exit 1 when there are any, 0 when none, 2 for input it cannot read.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  type LostPauseListing,
  LostPauseCollector,
  ObservationPipeline,
  type ReceiptLogLine,
  formatIssue,
  lostPausesInReceiptLog,
  readReceiptLogLine,
  readRecording,
  splitLogBytes,
  verifyReceiptLogBytes,
  errorMessage,
} from '../../src/internal.js';
import { CliExit, EXIT } from '../io.js';
import { keyringFromFiles } from '../options.js';
import { textTable } from '../text-table.js';

interface LostCommandOptions {
  key?: string[];
  json?: boolean;
  allowTornTail?: boolean;
}

type Source = { kind: 'recording' } | { kind: 'receipt log'; verification: string };

async function readBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new CliExit(EXIT.usage, `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The `type` of line 1: "recording" or "ReceiptLog"; anything else is a usage error naming line 1. */
function firstLineType(file: string, bytes: Buffer): string {
  const end = bytes.indexOf(0x0a);
  const text = bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
  if (text.trim() === '')
    throw new CliExit(EXIT.usage, `${file}:1: empty; expected a recording or a receipt log header`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliExit(EXIT.usage, `${file}:1: not JSON (${errorMessage(error)})`);
  }
  const type =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as { type?: unknown }).type
      : undefined;
  if (type !== 'recording' && type !== 'ReceiptLog') {
    throw new CliExit(
      EXIT.usage,
      `${file}:1: "type" is ${JSON.stringify(type)}; expected "recording" (a recording) or ` +
        `"ReceiptLog" (a receipt log)`,
    );
  }
  return type;
}

/** The observer's verdicts over a recording, through the same pipeline record and run use. */
async function lostInRecording(file: string, allowTornTail: boolean): Promise<LostPauseListing[]> {
  const recording = await readRecording(file, { allowTornTail, source: file });
  const collector = new LostPauseCollector();
  const pipeline = new ObservationPipeline({ recordingId: recording.header.id, spans: collector });
  for (const entry of recording.entries) void pipeline.push(entry);
  await pipeline.finish(recording.entries.at(-1)?.at ?? recording.header.createdAt);
  await pipeline.idle();
  return [...collector.lost];
}

function receiptLines(file: string, bytes: Buffer): ReceiptLogLine[] {
  const lines: ReceiptLogLine[] = [];
  for (const raw of splitLogBytes(bytes)) {
    if (raw.text === null) throw new CliExit(EXIT.usage, `${file}:${raw.number}: ${raw.problem ?? 'unreadable line'}`);
    if (raw.text.trim() === '' && !raw.complete) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw.text);
    } catch (error) {
      throw new CliExit(EXIT.usage, `${file}:${raw.number}: not JSON (${errorMessage(error)})`);
    }
    const parsed = readReceiptLogLine(value);
    if (!parsed.ok) throw new CliExit(EXIT.usage, `${file}:${raw.number}: ${formatIssue(parsed.issue)}`);
    lines.push(parsed.value);
  }
  return lines;
}

function describeSource(source: Source): string {
  return source.kind === 'recording' ? 'recording' : `receipt log, ${source.verification}`;
}

function render(file: string, source: Source, lost: readonly LostPauseListing[]): string {
  if (lost.length === 0) return `no lost pauses in ${file} (${describeSource(source)})\n`;
  const rows = [
    ['TASK', 'INITIATOR', 'REASON', 'SINCE', 'PAUSE REASON'],
    ...lost.map((l) => [
      l.taskId,
      l.initiatedBy ?? '-',
      l.reason,
      l.since,
      l.pauseReason === null ? '-' : JSON.stringify(l.pauseReason),
    ]),
  ];
  const count = `${lost.length} lost pause${lost.length === 1 ? '' : 's'}`;
  return `${count} in ${file} (${describeSource(source)})\n${textTable(rows)}\n`;
}

export function registerLost(program: Command): void {
  program
    .command('lost')
    .description('list pauses that were never resumed, from a recording or a receipt log (exit 1 if any)')
    .argument('<file>', 'a recording (*.jsonl) or a receipt log (*.receipts.jsonl)')
    .option('--key <file...>', 'key file(s) to verify a receipt log with first')
    .option('--json', 'print the lost pauses as a JSON array')
    .option('--allow-torn-tail', 'skip a torn last line of a recording (a recorder crash)')
    .action(async (file: string, options: LostCommandOptions) => {
      const bytes = await readBytes(file);
      const type = firstLineType(file, bytes);
      let source: Source;
      let lost: LostPauseListing[];
      if (type === 'recording') {
        if (options.key?.length)
          throw new CliExit(EXIT.usage, '--key applies to receipt logs only; a recording is not signed');
        source = { kind: 'recording' };
        lost = await lostInRecording(file, options.allowTornTail ?? false);
      } else {
        const lines = receiptLines(file, bytes);
        source = { kind: 'receipt log', verification: 'unverified' };
        if (options.key?.length) {
          // An open end is what `lost` looks at (a recorder killed before its closing checkpoint).
          const result = verifyReceiptLogBytes(bytes, {
            keyring: await keyringFromFiles(options.key),
            allowOpen: true,
            allowTornTail: options.allowTornTail ?? false,
          });
          if (!result.ok) {
            const failure = result.firstError;
            throw new CliExit(
              EXIT.usage,
              `${file}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
                `${failure?.message ?? ''})`,
            );
          }
          // With only a public key, receipts after the last checkpoint rest on nothing: say so.
          const unvouched = result.receipts - result.vouched;
          source.verification =
            result.receiptSignatures === 'checked'
              ? 'verified'
              : `chain verified, signatures unchecked${
                  unvouched > 0 ? `; ${unvouched} after the last checkpoint not vouched for` : ''
                }`;
        }
        lost = lostPausesInReceiptLog(lines);
      }
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ file, source: describeSource(source), lost }, null, 2)}\n`
          : render(file, source, lost),
      );
      if (lost.length > 0) throw new CliExit(EXIT.drift, '');
    });
}
