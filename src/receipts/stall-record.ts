/**
 * @module receipts/stall-record
 * The stall record of a receipt log (docs/design.md §5, "A full disk"): a file beside the log,
 * `X.receipts.stall` for `X.receipts.jsonl`, whose space the writer takes while the disk has room
 * ({@link STALL_RECORD_BYTES}, written and synced when the log is created). When a write of the log
 * fails, the writer overwrites that space in place with a signed record of what it could not
 * write: the lines kept back (as many as fit) and where they belong. Overwriting blocks a file
 * already holds takes no new space, so the record is written when nothing else can be; a log
 * whose recorder stopped before the disk had room again is then known to lack those lines, and
 * `verify` and `lost` say so. The record is removed when the log closes whole.
 *
 * One line of canonical JSON, padded with spaces to the reserved size:
 * `{"log": <hash of the log's header line>, "sig": {...}, "stall": null | {...}, "type": "a2a-replay.stall"}`,
 * signed with HMAC-SHA256 under the log's signing kid over
 * `PAE("application/vnd.a2a-replay.stall.v1+json", JCS(record without sig))`.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import { canonicalJson, sha256Prefixed } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import { openOutputFile } from '../output-file.js';
import { datasync, datasyncFd } from '../recording/line-sink.js';
import type { Keyring, ReceiptKey } from './keys.js';
import { pae } from './pae.js';
import type { VerifyFailure } from './verify-failure.js';

export const STALL_RECORD_TYPE = 'a2a-replay.stall';
export const STALL_PAYLOAD_TYPE = 'application/vnd.a2a-replay.stall.v1+json';
/** The space a stall record takes, reserved when its log is created. */
export const STALL_RECORD_BYTES = 64 * 1024;

/** What a writer could not write, as its stall record states it. */
export interface Stall {
  /** When the first write of these lines failed (the writer's clock). */
  since: string;
  /** The error's code (`ENOSPC`), or its message when it has none. */
  error: string;
  /** Lines whole in the log when the record was written, the header included. */
  written: number;
  /** The hash of the last of them: the lines kept back chain from it. */
  head: string;
  /** Lines kept back, in order. */
  count: number;
  /** The first of them, as sealed, as many as fit in the record. */
  lines: unknown[];
}

export interface StallRecord {
  type: typeof STALL_RECORD_TYPE;
  log: string;
  stall: Stall | null;
  sig: { alg: 'hmac-sha256'; kid: string; value: string };
}

/** `X.receipts.stall` beside `X.receipts.jsonl` (`LOG.stall` for another name). */
export function stallRecordPath(logPath: string): string {
  return logPath.endsWith('.jsonl') ? `${logPath.slice(0, -'.jsonl'.length)}.stall` : `${logPath}.stall`;
}

function stallMac(key: ReceiptKey, body: Omit<StallRecord, 'sig'>): string {
  return key.mac(pae(STALL_PAYLOAD_TYPE, canonicalJson(body))).toString('base64url');
}

/** The record's text padded to {@link STALL_RECORD_BYTES}; the stalled lines listed are cut to fit. */
function recordBytes(body: Omit<StallRecord, 'sig'>, key: ReceiptKey): Buffer {
  const stall = body.stall;
  for (let listed = stall?.lines.length ?? 0; ; listed = Math.floor(listed / 2)) {
    const cut = stall === null ? body : { ...body, stall: { ...stall, lines: stall.lines.slice(0, listed) } };
    const text = canonicalJson({ ...cut, sig: { alg: 'hmac-sha256', kid: key.kid, value: stallMac(key, cut) } });
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes < STALL_RECORD_BYTES || listed === 0) {
      const out = Buffer.alloc(Math.max(STALL_RECORD_BYTES, bytes + 1), 0x20);
      out.write(text, 0, 'utf8');
      out[out.length - 1] = 0x0a;
      return out;
    }
  }
}

/**
 * The writer's side: the reserved file, overwritten in place at each stall. Its writes are
 * synchronous (a write into blocks the file holds) and its syncs in the background: the log's
 * own failure is what refuses answers; this record is what a reader finds afterwards.
 */
export class StallRecorder {
  readonly path: string;
  #fd: number | null;
  readonly #key: ReceiptKey;
  readonly #log: string;
  readonly #sync: boolean;
  /** Lines kept back in the record written last (so a retry that changes nothing rewrites nothing). */
  #recorded = 0;

  private constructor(path: string, fd: number, key: ReceiptKey, log: string, sync: boolean) {
    this.path = path;
    this.#fd = fd;
    this.#key = key;
    this.#log = log;
    this.#sync = sync;
  }

  /** Creates (or replaces) the record with no stall, taking its space, synced unless `sync` is false. */
  static async create(path: string, options: { key: ReceiptKey; log: string; sync: boolean }): Promise<StallRecorder> {
    let file;
    try {
      file = await openOutputFile(path, { replace: true });
    } catch (cause) {
      throw new A2aReplayError('IO_FAILED', `cannot create the stall record ${path}: ${(cause as Error).message}`, {
        cause,
      });
    }
    const fd = file.fd;
    try {
      const bytes = recordBytes({ type: STALL_RECORD_TYPE, log: options.log, stall: null }, options.key);
      writeSync(fd, bytes, 0, bytes.length, 0);
      if (options.sync) await datasync(fd);
    } catch (cause) {
      await file.close();
      unlinkSync(path);
      throw new A2aReplayError(
        'IO_FAILED',
        `cannot reserve the stall record ${path}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`,
        { cause },
      );
    }
    // The descriptor is used synchronously from here on; the handle only opened it.
    const own = openSync(path, 'r+');
    await file.close();
    return new StallRecorder(path, own, options.key, options.log, options.sync);
  }

  /** Overwrites the record with `stall` (unless it lists as many lines as the last one). Never throws. */
  record(stall: Stall): void {
    const fd = this.#fd;
    if (fd === null || stall.count === this.#recorded) return;
    try {
      const bytes = recordBytes({ type: STALL_RECORD_TYPE, log: this.#log, stall }, this.#key);
      writeSync(fd, bytes, 0, bytes.length, 0);
      this.#recorded = stall.count;
      if (this.#sync) datasyncFd(fd, () => undefined);
    } catch {
      // The record is the last resort: a write into its own blocks failing leaves the log's failure said.
    }
  }

  /** The log closed whole: the record has nothing to say and goes. */
  remove(): void {
    this.#closeFd();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone: nothing to say either way.
    }
  }

  /** The log ends without its lines: the record stays. */
  keep(): void {
    this.#closeFd();
  }

  #closeFd(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      // Closing a descriptor of a file written in place: nothing is lost by a failure here.
    }
    this.#fd = null;
  }
}

/** What a reader makes of a log's stall record. */
export interface LogStall {
  /** The record's file. */
  file: string;
  since: string;
  error: string;
  /** The first line of the log the lines kept back belonged at. */
  line: number;
  /** Lines kept back. */
  count: number;
  /** The receipts among those the record lists, in order. */
  receipts: Array<{ type: string; taskId: string; seq: number }>;
  /** Lines kept back that the record could not list. */
  unlisted: number;
  /** The log holds every line kept back: the disk had room again before the recorder stopped. */
  writtenSince: boolean;
  /** `checked`: its HMAC matched a key given; `unchecked`: no key given could check it. */
  signature: 'checked' | 'unchecked';
}

/**
 * Reads the stall record beside `logPath`, for a log whose header line hashes to `headerHash` and
 * which holds `lines` lines: null when there is none, or it states no stall. A record that does
 * not parse, names another log or fails its signature is an error naming the file.
 */
export function readLogStall(
  logPath: string,
  log: { headerHash: string; lines: number },
  keyring: Keyring | undefined,
): LogStall | null {
  const file = stallRecordPath(logPath);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new A2aReplayError('IO_FAILED', `cannot read the stall record ${file}: ${(error as Error).message}`);
  }
  const bad = (why: string): A2aReplayError => new A2aReplayError('RECEIPT_INVALID', `the stall record ${file} ${why}`);
  let record: StallRecord;
  try {
    record = JSON.parse(text) as StallRecord;
  } catch {
    throw bad('is not JSON');
  }
  if (record?.type !== STALL_RECORD_TYPE || typeof record.log !== 'string' || typeof record.sig?.kid !== 'string')
    throw bad(`is not a stall record (type ${JSON.stringify(record?.type)})`);
  if (record.log !== log.headerHash) throw bad(`belongs to another log (its header hash is ${record.log})`);
  const { sig, ...body } = record;
  const key = keyring?.get(sig.kid);
  let signature: LogStall['signature'] = 'unchecked';
  if (key?.hasHmac) {
    const want = Buffer.from(stallMac(key, body), 'utf8');
    const given = Buffer.from(String(sig.value), 'utf8');
    if (want.length !== given.length || !timingSafeEqual(want, given)) throw bad('has a bad signature');
    signature = 'checked';
  } else if (keyring !== undefined && !key) throw bad(`is signed by kid ${sig.kid}, which no given key has`);
  const stall = record.stall;
  if (stall === null) return null;
  const receipts = stall.lines.flatMap((l) => {
    const line = l as { type?: unknown; taskId?: unknown; seq?: unknown };
    return typeof line.taskId === 'string' && typeof line.seq === 'number' && typeof line.type === 'string'
      ? [{ type: line.type, taskId: line.taskId, seq: line.seq }]
      : [];
  });
  return {
    file,
    since: stall.since,
    error: stall.error,
    line: stall.written + 1,
    count: stall.count,
    receipts,
    unlisted: stall.count - stall.lines.length,
    writtenSince: log.lines >= stall.written + stall.count,
    signature,
  };
}

/** The hash of a log's header line as written (its first line, without the newline). */
export function headerLineHash(firstLine: string): string {
  return sha256Prefixed(firstLine);
}

/** What `verify` and `lost` say of a stall whose lines the log lacks. */
export function stallMessage(stall: LogStall): string {
  const listed = stall.receipts.map((r) => `${r.type} seq ${r.seq} of task ${r.taskId}`).join(', ');
  const n = stall.count;
  return (
    `UNRECEIPTED: the recorder could not write ${n} line${n === 1 ? '' : 's'} from line ${stall.line} on ` +
    `(${stall.error} since ${stall.since}) and stopped before it could: the peer's moves they receipt have no ` +
    `receipt in this log, and the answers that showed them were refused` +
    (listed === '' ? '' : `: ${listed}`) +
    (stall.unlisted > 0 ? ` and ${stall.unlisted} more line${stall.unlisted === 1 ? '' : 's'}` : '') +
    ` (${stall.file})`
  );
}

/** What {@link withStallRecord} reads and sets of a verification's result (receipts/verify `VerifyResult`). */
export interface StallCheckable {
  ok: boolean;
  /** Lines read, header included. */
  lines: number;
  stall?: LogStall;
  firstError?: VerifyFailure;
}

/**
 * `result` with what the stall record beside the log states (docs/design.md §5, "A full disk"):
 * lines its writer kept back that the log lacks fail it with `unreceipted` (in place of an open
 * end, which they explain); a record that does not verify fails it too, naming the file.
 */
export function withStallRecord<T extends StallCheckable>(
  path: string,
  result: T,
  header: { hash: string } | null,
  keyring: Keyring,
): T {
  if (header === null) return result;
  const replaceable = result.ok || result.firstError?.reason === 'not_closed';
  let stall: LogStall | null;
  try {
    stall = readLogStall(path, { headerHash: header.hash, lines: result.lines }, keyring);
  } catch (error) {
    if (!replaceable) return result;
    return { ...result, ok: false, firstError: { line: 0, reason: 'unreceipted', message: (error as Error).message } };
  }
  if (stall === null) return result;
  if (stall.writtenSince || !replaceable) return { ...result, stall };
  return {
    ...result,
    stall,
    ok: false,
    firstError: { line: stall.line, reason: 'unreceipted', message: stallMessage(stall) },
  };
}
