/**
 * @module record/rotation
 * A recorder's rotation, `rotateBytes` and `rotateAfter` (docs/design.md §6, "Rotation"): once
 * the recording file reaches N bytes, or has been open for DURATION, the recorder closes the
 * recording and its receipt log (closing checkpoint bound to that recording) and goes on in a new
 * pair named by position (`X.<n>.jsonl`, `X.<n>.receipts.jsonl`), the new log's header linked to
 * the closed one exactly as `continueFrom` links it. One observer sees the whole session, so
 * an exchange or SSE stream open across a rotation is observed as if no file had changed.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import type { ReceiptSink } from '../observe/pipeline.js';
import type { Keyring } from '../receipts/keys.js';
import { MAX_LINE_BYTES } from '../receipts/log-reader.js';
import type { ReceiptLogWriter } from '../receipts/log-writer.js';
import { readLogToContinue } from '../receipts/series.js';
import { seriesLinkAfter } from '../receipts/series-link.js';
import type {
  ContinuationDraft,
  InterruptionDraft,
  ResumptionDraft,
  SeriesLink,
  SuspensionDraft,
  SuspensionReference,
} from '../receipts/types.js';
import type { RecordingEntry, RecordingHeader } from '../recording/format.js';
import type { EntryDraft, EntryWriter, RecordingWriter } from '../recording/recording-writer.js';
import { RecorderOptionError } from './option-error.js';

/** When a file is closed and the next one begun; null members never rotate. */
export interface RotationLimits {
  bytes: number | null;
  afterMs: number | null;
}

const DURATION_UNITS_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `90s`, `15m`, `24h` in milliseconds; anything else is a {@link RecorderOptionError} naming `option`. */
export function parseDuration(text: string, option: string): number {
  const match = /^([1-9]\d{0,8})(s|m|h)$/.exec(text.trim());
  if (match === null)
    throw new RecorderOptionError(
      option,
      `expected a whole number of seconds, minutes or hours (90s, 15m, 24h); got ${JSON.stringify(text)}`,
    );
  return Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS];
}

/**
 * The limits `rotateBytes` (a whole number of bytes, at least 1) and `rotateAfter` (milliseconds,
 * or a duration such as `15m`) give, or null when neither is given.
 */
export function rotationLimits(options: {
  rotateBytes?: number | undefined;
  rotateAfter?: number | string | undefined;
}): RotationLimits | null {
  const { rotateBytes, rotateAfter } = options;
  if (rotateBytes === undefined && rotateAfter === undefined) return null;
  if (rotateBytes !== undefined && !(Number.isSafeInteger(rotateBytes) && rotateBytes >= 1))
    throw new RecorderOptionError('rotateBytes', `expected an integer of at least 1; got ${String(rotateBytes)}`);
  if (typeof rotateAfter === 'number' && !(Number.isSafeInteger(rotateAfter) && rotateAfter >= 1))
    throw new RecorderOptionError('rotateAfter', `expected a whole number of milliseconds; got ${String(rotateAfter)}`);
  return {
    bytes: rotateBytes ?? null,
    afterMs:
      rotateAfter === undefined
        ? null
        : typeof rotateAfter === 'number'
          ? rotateAfter
          : parseDuration(rotateAfter, 'rotateAfter'),
  };
}

/**
 * The name of the file at `position` of the series whose file at `start` is `file`
 * (docs/design.md §6): `X.jsonl` / `X.receipts.jsonl` hold position 1, `X.<n>.jsonl` /
 * `X.<n>.receipts.jsonl` position n. A `file` already named for `start` (`X.<start>.jsonl`, as a
 * `continueFrom` recorder's is) gives the same X.
 */
export function positionedPath(file: string, start: number, position: number): string {
  const name = basename(file);
  const suffix = ['.receipts.jsonl', '.jsonl'].find((s) => name.endsWith(s) && name.length > s.length) ?? '';
  let stem = name.slice(0, name.length - suffix.length);
  if (start > 1 && stem.endsWith(`.${start}`)) stem = stem.slice(0, -`.${start}`.length);
  return join(dirname(file), position === 1 ? `${stem}${suffix}` : `${stem}.${position}${suffix || '.jsonl'}`);
}

/**
 * Refuses to start a rotating recorder whose later files are already there (files of a series are
 * never overwritten): gives the usage error naming the first such file in `dir` after `file`'s
 * position `start`, for the recording (`file`) or its receipt log (`receipts`).
 */
export async function assertNoLaterFiles(files: readonly string[], start: number): Promise<void> {
  for (const file of files) {
    const first = positionedPath(file, start, start + 1);
    const marker = `.${start + 1}.`;
    const at = basename(first).lastIndexOf(marker);
    const before = basename(first).slice(0, at);
    const after = basename(first).slice(at + marker.length);
    const names = await readdir(dirname(file)).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const match =
        name.startsWith(`${before}.`) && name.endsWith(`.${after}`)
          ? /^\d+$/.exec(name.slice(before.length + 1, name.length - after.length - 1))
          : null;
      if (match !== null && Number(match[0]) > start)
        throw new RecorderOptionError(
          ['rotateBytes', 'rotateAfter'],
          `${join(dirname(file), name)} already exists, and a rotating recorder writes the files after its ` +
            'first by position: move it away or record to another file',
        );
    }
  }
}

/**
 * The recording side: entries go to the current file; {@link rotate} closes it in the background
 * and opens the next. Entries are numbered from 1 in each file (a recording on its own reads as
 * one); {@link offset} is how many the files before the current hold, so that the observer sees
 * one numbering for the whole session.
 */
export class RotatingRecording implements EntryWriter {
  /** The first file's header: the session's (span ids derive from its id). */
  readonly header: RecordingHeader;
  readonly files: string[];
  readonly #open: (path: string) => RecordingWriter;
  readonly #limits: RotationLimits | null;
  readonly #clock: Clock;
  readonly #sync: boolean;
  readonly #start: number;
  readonly #closing = new Set<Promise<void>>();
  #current: RecordingWriter;
  #offset = 0;
  #openedAt: number;
  #dropped = 0;

  constructor(options: {
    first: RecordingWriter;
    path: string;
    /** The series position of the first file (1, or the one `continueFrom` gives). */
    position: number;
    open: (path: string) => RecordingWriter;
    limits: RotationLimits | null;
    clock: Clock;
    /** Whether a file is synced before it is closed (the fsync policy is not `never`). */
    sync: boolean;
  }) {
    this.header = options.first.header;
    this.#current = options.first;
    this.files = [options.path];
    this.#start = options.position;
    this.#open = options.open;
    this.#limits = options.limits;
    this.#clock = options.clock;
    this.#sync = options.sync;
    this.#openedAt = options.clock.now();
  }

  get current(): RecordingWriter {
    return this.#current;
  }

  /** Entries in the files before the current one. */
  get offset(): number {
    return this.#offset;
  }

  /** Lines not written because a file failed, over every file. */
  get dropped(): number {
    return this.#dropped + this.#current.dropped;
  }

  append(draft: EntryDraft): RecordingEntry {
    return this.#current.append(draft);
  }

  /** An entry just written as the current file holds it, numbered for the whole session. */
  sessionEntry(entry: RecordingEntry): RecordingEntry {
    return this.#offset === 0 ? entry : { ...entry, seq: entry.seq + this.#offset };
  }

  /** The current file has reached a limit: the next entry belongs in a new one. */
  due(): boolean {
    const limits = this.#limits;
    if (limits === null || this.#current.size === 0) return false;
    if (limits.bytes !== null && this.#current.length >= limits.bytes) return true;
    return limits.afterMs !== null && this.#clock.now() - this.#openedAt >= limits.afterMs;
  }

  /** Closes the current file (synced first, by the policy) in the background and opens the next. */
  rotate(): { closed: RecordingWriter; closing: Promise<void>; opened: RecordingWriter } {
    const closed = this.#current;
    const closing = (this.#sync ? closed.durable(true) : Promise.resolve()).then(() => closed.close());
    this.#closing.add(closing);
    void closing.then(() => {
      this.#closing.delete(closing);
      this.#dropped += closed.dropped;
    });
    const path = positionedPath(this.files[0]!, this.#start, this.#start + this.files.length);
    this.#offset += closed.size;
    this.#current = this.#open(path);
    this.#openedAt = this.#clock.now();
    this.files.push(path);
    return { closed, closing, opened: this.#current };
  }

  /**
   * Every line appended so far has reached its file (and, with `sync`, is durable), whichever
   * file; resolves to the current file's failure when its lines could not be (undefined when they are).
   */
  durable(sync: boolean): Promise<unknown> {
    const current = this.#current.durable(sync);
    if (this.#closing.size === 0) return current;
    return Promise.all([...this.#closing, current]).then((all) => all[all.length - 1]);
  }

  /** {@link durable} with a callback: no promise unless a closed file is still closing. */
  whenDurable(sync: boolean, done: (failure?: unknown) => void): void {
    if (this.#closing.size === 0) this.#current.whenDurable(sync, done);
    else void this.durable(sync).then(done);
  }

  /** What the current file's receipt log closes bound to. */
  binding(): ReturnType<RecordingWriter['binding']> {
    return this.#current.binding();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#closing, this.#current.close()]);
  }
}

/**
 * The receipt side, a {@link ReceiptSink} over the current log. {@link rotate} runs on the
 * observation pipeline's queue (`between`), so every receipt the entries of a closed recording
 * made is in its log, and every later one in the next.
 */
export class RotatingLog implements ReceiptSink {
  readonly files: string[];
  readonly #keyring: Keyring;
  readonly #open: (path: string, link: SeriesLink, recording: RecordingHeader) => Promise<ReceiptLogWriter>;
  readonly #start: number;
  readonly #closing = new Set<Promise<void>>();
  #current: ReceiptLogWriter;

  constructor(options: {
    first: ReceiptLogWriter;
    position: number;
    keyring: Keyring;
    open: (path: string, link: SeriesLink, recording: RecordingHeader) => Promise<ReceiptLogWriter>;
  }) {
    this.#current = options.first;
    this.files = [options.first.path];
    this.#start = options.position;
    this.#keyring = options.keyring;
    this.#open = options.open;
  }

  get path(): string {
    return this.#current.path;
  }

  appendSuspension(draft: SuspensionDraft): Promise<{ hash: string }> {
    return this.#current.appendSuspension(draft);
  }

  appendResumption(draft: ResumptionDraft, suspension: SuspensionReference): Promise<{ hash: string }> {
    return this.#current.appendResumption(draft, suspension);
  }

  appendInterruption(draft: InterruptionDraft): Promise<{ hash: string } | undefined> {
    return this.#current.appendInterruption(draft);
  }

  appendContinuation(draft: ContinuationDraft, interruptionHash: string): Promise<{ hash: string } | undefined> {
    return this.#current.appendContinuation(draft, interruptionHash);
  }

  durable(): Promise<void> {
    const current = this.#current.durable();
    if (this.#closing.size === 0) return current;
    return Promise.all([...this.#closing, current]).then(() => undefined);
  }

  whenDurable(done: () => void, failed: (error: unknown) => void): void {
    if (this.#closing.size === 0) this.#current.whenDurable(done, failed);
    else this.durable().then(done, failed);
  }

  /**
   * Closes the current log bound to `closed` (once that recording is closed: `closing`), reads
   * where it ended as `continueFrom` reads a log, and opens the next log, linked to it, for
   * `opened`.
   */
  async rotate(closed: RecordingWriter, closing: Promise<void>, opened: RecordingWriter): Promise<void> {
    const log = this.#current;
    const done = closing.then(() => log.close(closed.binding()));
    this.#closing.add(done);
    try {
      await done;
    } finally {
      this.#closing.delete(done);
    }
    const { end } = await readLogToContinue(log.path, this.#keyring);
    const link = seriesLinkAfter(end);
    // The header is one line: it must stay within what a log reader takes (as for continueFrom).
    if (canonicalJson(link).length > MAX_LINE_BYTES - 4096)
      throw new Error(
        `${log.path} ends with ${end.open.length} open pauses and ${end.interruptions.length} open interruptions, ` +
          'more than one header line can carry',
      );
    const path = positionedPath(this.files[0]!, this.#start, this.#start + this.files.length);
    this.#current = await this.#open(path, link, opened.header);
    this.files.push(path);
  }

  close(binding: ReturnType<RecordingWriter['binding']>): Promise<void> {
    return this.#current.close(binding);
  }
}
