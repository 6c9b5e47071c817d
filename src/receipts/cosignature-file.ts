/**
 * @module receipts/cosignature-file
 * The cosignature file beside a receipt log, `X.receipts.cosignatures.jsonl` (docs/design.md §6,
 * "Witnesses"): one canonical JSON line per witness answer the recorder got for a checkpoint.
 * `Cosigned` holds the checkpoint note with the witness's cosignature line added, verbatim (a
 * cosigned checkpoint any C2SP tool reads); `WitnessRefusal` says a witness would not cosign it, a
 * fork among them. The log's lines and their chain are untouched: a cosignature arrives after its
 * checkpoint is written, so it is kept apart, and a lost or edited file costs witnesses, never
 * the log's own verification.
 */
import type { FileHandle } from 'node:fs/promises';
import { canonicalJson } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import { openOutputFile } from '../output-file.js';

export interface CosignedRecord {
  type: 'Cosigned';
  /** The checkpoint's tree size (the 0-based line index of its checkpoint line). */
  size: number;
  witness: string;
  /** The checkpoint note followed by the witness's cosignature line. */
  note: string;
}

export interface RefusalRecord {
  type: 'WitnessRefusal';
  size: number;
  witness: string;
  kind: 'fork' | 'refused';
  /** The HTTP status the witness answered, when it answered one. */
  status: number | null;
  message: string;
}

export type WitnessRecord = CosignedRecord | RefusalRecord;

/** `X.receipts.jsonl` → `X.receipts.cosignatures.jsonl`. */
export function cosignaturesPathFor(log: string): string {
  return `${log.endsWith('.jsonl') ? log.slice(0, -'.jsonl'.length) : log}.cosignatures.jsonl`;
}

/** Appends records to a new cosignature file (mode 0600, never through a link), created at the first one. */
export class CosignatureFile {
  readonly path: string;
  #file: Promise<FileHandle> | null = null;
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  /** Appends one line; appends run in call order. */
  append(record: WitnessRecord): Promise<void> {
    this.#file ??= openOutputFile(this.path, {});
    const file = this.#file;
    const line = `${canonicalJson(record)}\n`;
    const written = this.#tail.then(async () => {
      await (await file).appendFile(line, 'utf8');
    });
    this.#tail = written.catch(() => undefined);
    return written;
  }

  async close(): Promise<void> {
    await this.#tail;
    if (this.#file) await (await this.#file).close();
  }
}

function field(value: Record<string, unknown>, name: string, line: number): unknown {
  if (!(name in value)) throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: no member ${name}`);
  return value[name];
}

/** Reads a cosignature file's text; names the line that is not a record. */
export function parseCosignatureFile(text: string): WitnessRecord[] {
  const records: WitnessRecord[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw === '') continue;
    const line = i + 1;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: not JSON`);
    }
    const type = field(value, 'type', line);
    const size = field(value, 'size', line);
    const witness = field(value, 'witness', line);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || typeof witness !== 'string')
      throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: size and witness expected`);
    if (type === 'Cosigned') {
      const note = field(value, 'note', line);
      if (typeof note !== 'string') throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: note is not text`);
      records.push({ type, size, witness, note });
    } else if (type === 'WitnessRefusal') {
      const kind = field(value, 'kind', line);
      const status = field(value, 'status', line);
      const message = field(value, 'message', line);
      if ((kind !== 'fork' && kind !== 'refused') || typeof message !== 'string')
        throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: kind and message expected`);
      records.push({ type, size, witness, kind, status: typeof status === 'number' ? status : null, message });
    } else {
      throw new A2aReplayError('INVALID_ARGUMENT', `line ${line}: unknown type ${JSON.stringify(type)}`);
    }
  }
  return records;
}
