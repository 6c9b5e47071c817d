/**
 * @module logs/collector-input
 * A log set reads a receipt log from an OpenTelemetry collector's `file`
 * exporter output as well as from the log file (docs/design.md §6, "Receipts through the
 * telemetry pipeline"): an OTLP JSON export (`resourceLogs` → `scopeLogs` → `logRecords`, one
 * request a line) is told by its first line, its records are put back into the log's lines by
 * origin and index, and those lines, written to a private temporary file, are read as the log.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2aReplayError, errorMessage } from '../errors.js';
import { readFirstLine } from './first-line.js';
import { isCollectorLogExport, logsFromCollectorExport } from '../receipts/receipt-log-records.js';

/** The file to read as the receipt log, and what to do when done. */
export interface ReceiptLogInput {
  path: string;
  /** The origin of the log taken from a collector export; null for a receipt log file. */
  origin: string | null;
  cleanup(): Promise<void>;
}

/**
 * `file` as a receipt log: itself, or the one receipt log a collector export holds. An export of
 * several logs is refused naming their origins (one log is read at a time).
 */
export async function receiptLogInput(file: string): Promise<ReceiptLogInput> {
  const first = await readFirstLine(file);
  if (!isCollectorLogExport(first)) return { path: file, origin: null, cleanup: async () => undefined };
  let logs: Map<string, string[]>;
  try {
    logs = logsFromCollectorExport(await readFile(file, 'utf8'), file);
  } catch (error) {
    throw new A2aReplayError('INVALID_ARGUMENT', errorMessage(error));
  }
  if (logs.size !== 1)
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      logs.size === 0
        ? `${file}: an OTLP log export holding no receipt-log records`
        : `${file}: holds ${logs.size} receipt logs (${[...logs.keys()].join(', ')}); export one log's records`,
    );
  const [origin, lines] = [...logs][0]!;
  const dir = await mkdtemp(join(tmpdir(), 'a2a-replay-export-'));
  const path = join(dir, 'export.receipts.jsonl');
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return { path, origin, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
