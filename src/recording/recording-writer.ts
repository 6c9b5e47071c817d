/**
 * @module recording/recording-writer
 * Writes a recording (docs/design.md §5): the header line first, then one canonical-JSON line per entry
 * in the order appended. `append` is synchronous and never throws: it stamps `seq` and `at` and
 * queues the line; queued lines go to the sink in batches (one write per burst: at most
 * {@link WRITE_DELAY_MS} later, at once for a line somebody waits for, synchronously when the
 * sink can), so a slow or failing disk never breaks the exchange being recorded, and delays only
 * the answers held for it. A write that fails (a full disk) stalls the writer: its lines stay
 * queued, in order, callers waiting for them are told the failure at once (so the answers they
 * hold are refused), and the next line, wait or `close` writes them again; the file sink writes
 * them at the same position, so no torn line is left between two others (docs/design.md §5, "A
 * full disk"). A failed sync, or lines still unwritten at `close`, end it: later lines are
 * dropped and counted. Each failure that starts a stall or ends the writer goes to `onError`.
 */
import { type JsonValue, canonicalJson, replaceNonFinite, sha256Prefixed } from '../canonical/canonical-json.js';
import { type Clock, isoAt } from '../clock.js';
import type { IdSource } from '../ids.js';
import { TOOL_NAME } from '../version.js';
import { entryLine } from './entry-line.js';
import { RECORDING_VERSION, type RecordingEntry, type RecordingHeader } from './format.js';
import type { LineSink } from './line-sink.js';
import { redactUrl } from './redaction.js';

/** An entry before the writer gives it its place (`seq`) and time (`at`). */
export type EntryDraft = Omit<RecordingEntry, 'seq' | 'at'>;

/** What exchange recorders need from a writer. */
export interface EntryWriter {
  /** Stamps `seq` and `at`, queues the line, and returns the entry as written. Never throws. */
  append(draft: EntryDraft): RecordingEntry;
}

export interface RecordingWriterOptions {
  sink: LineSink;
  clock: Clock;
  ids: IdSource;
  /** The recorded peer's URL (header `target.url`, written without user-info). */
  target: string;
  /** Defaults to {@link TOOL_NAME}. */
  tool?: string;
  /** The upstream's agent card, kept in the header (`agentCard`). */
  agentCard?: JsonValue;
  /** Called with each failure that stalls the writer or ends it (module doc). */
  onError?: (error: unknown) => void;
}

/**
 * Serializes one line: RFC 8785 form, so equal entries are equal bytes; a lone surrogate a
 * client sent is kept as a `\uXXXX` escape (docs/design.md §5). Entries of plain JSON take the
 * fast writer (`entry-line.ts`, the same bytes); anything else the generic serializer.
 */
export function serializeLine(value: RecordingHeader | RecordingEntry): string {
  if ('type' in value) return `${canonicalJson(value, { loneSurrogates: 'escape' })}\n`;
  return writtenLine(value).line;
}

/**
 * An entry's line, and the entry as that line holds it: what anything reading the recording will
 * see, so the writer hands listeners (the observer) that and not what it was given.
 */
export function writtenLine(entry: RecordingEntry): { line: string; entry: RecordingEntry } {
  const fast = entryLine(entry);
  if (fast !== undefined) return { line: `${fast}\n`, entry };
  try {
    return { line: `${canonicalJson(entry, { loneSurrogates: 'escape' })}\n`, entry };
  } catch {
    // below
  }
  // A parsed body may hold a number beyond the double range (`1e400`, which JSON.parse reads as
  // Infinity): it is written as null, as JSON.stringify writes it, and the body stays a body, so
  // the observer and replay still see the call.
  if (entry.body !== undefined) {
    const finite = replaceNonFinite(entry.body);
    if (finite.repaired) {
      const written = { ...entry, body: finite.value };
      try {
        return { line: `${canonicalJson(written, { loneSurrogates: 'escape' })}\n`, entry: written };
      } catch {
        // below
      }
    }
  }
  // Not JSON at all (cannot come from a parsed body): keep it as well-formed text rather than
  // lose the entry.
  const { body, ...rest } = entry;
  const text = JSON.stringify(body ?? null).replace(/\\ud[89ab][0-9a-f]{2}|\\ud[c-f][0-9a-f]{2}/gi, '\\ufffd');
  const written = { ...rest, bodyText: text };
  return { line: `${canonicalJson(written)}\n`, entry: written };
}

/**
 * Lines wait this long for more to share their write, unless somebody waits for them (`flush`,
 * `durable`, `close`) or {@link WRITE_BATCH_BYTES} are queued.
 */
const WRITE_DELAY_MS = 10;
const WRITE_BATCH_BYTES = 64 * 1024;

export class RecordingWriter implements EntryWriter {
  readonly header: RecordingHeader;
  readonly #sink: LineSink;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  #seq = 0;
  #pending: string[] = [];
  /** The last line queued, with its newline. */
  #lastLine = '';
  /** A write is running; a delayed one is scheduled. */
  #draining = false;
  #delayed: NodeJS.Timeout | undefined;
  #pendingBytes = 0;
  /** Characters of every line queued so far, the header included (bytes, for the ASCII lines mostly are). */
  #length = 0;
  #failed: unknown;
  /** The failure of the last write while its lines wait to be written again. */
  #stall: unknown;
  /** Lines written to the sink (the header included). */
  #written = 0;
  #closed: Promise<void> | undefined;
  #dropped = 0;
  /** Lines queued so far (the header included), and how many of them are settled: written or dropped. */
  #queued = 0;
  #settled = 0;
  /** Callers waiting for the first `target` lines to settle; told the failure when they cannot. */
  #reachWaiters: { target: number; done: (failure?: unknown) => void }[] = [];
  /** Lines the last finished sync covered; what the sync running now covers, and who waits for it. */
  #synced = 0;
  #syncing: { covers: number; waiters: ((failure?: unknown) => void)[] } | undefined;
  /** Callers that need a sync after the running one, or after the end of this turn (group commit). */
  #syncWaiters: ((failure?: unknown) => void)[] = [];
  /** The sync that starts at the end of this turn, which every caller of the turn shares. */
  #turnSync: NodeJS.Immediate | undefined;
  /** Told once no sync runs or is due at the end of the turn (`close` waits for them). */
  #syncsIdle: (() => void)[] = [];

  constructor(options: RecordingWriterOptions) {
    this.#sink = options.sink;
    this.#clock = options.clock;
    this.#onError = options.onError ?? (() => {});
    this.header = {
      type: 'recording',
      version: RECORDING_VERSION,
      id: options.ids.next('rec'),
      createdAt: isoAt(options.clock.now()),
      target: { url: redactUrl(options.target) },
      tool: options.tool ?? TOOL_NAME,
      ...(options.agentCard === undefined ? {} : { agentCard: options.agentCard }),
    };
    this.#enqueue(serializeLine(this.header));
  }

  /** Entries appended so far. */
  get size(): number {
    return this.#seq;
  }

  /** Characters of the lines written so far, the header included: what `record --rotate-bytes` counts. */
  get length(): number {
    return this.#length;
  }

  /** True once the sink has failed for good (later lines are dropped). */
  get failed(): boolean {
    return this.#failed !== undefined;
  }

  /** The failure of the last write while its lines wait to be written again (module doc). */
  get stalled(): unknown {
    return this.#stall;
  }

  /** Lines that did not reach the sink because it failed (counted for the shutdown report). */
  get dropped(): number {
    return this.#dropped;
  }

  append(draft: EntryDraft): RecordingEntry {
    this.#seq += 1;
    const { line, entry } = writtenLine({ seq: this.#seq, at: isoAt(this.#clock.now()), ...draft });
    if (this.#closed === undefined) this.#enqueue(line);
    return entry;
  }

  /** Resolves when every line appended so far has reached the sink, or could not. */
  flush(): Promise<void> {
    return this.#reach(this.#queued);
  }

  /**
   * Resolves when every line appended so far has reached the sink and, with `sync`, been made
   * durable (the sink's fsync); lines appended later are not waited for. A sync starts at the end
   * of the event-loop turn, so the callers of one turn (the answers of several connections read
   * in one poll) share it; callers that arrive while a sync runs share the next one (group
   * commit), unless the running one already covers their lines. Never rejects: it resolves to
   * the failure when the lines could not be written or synced (undefined when they are durable).
   */
  durable(sync: boolean): Promise<unknown> {
    return new Promise((resolve) => this.whenDurable(sync, resolve));
  }

  /**
   * {@link durable} with a callback: `done` is called once (never synchronously when anything is
   * left to write or sync), with no promise in between, and with the failure when there is one.
   */
  whenDurable(sync: boolean, done: (failure?: unknown) => void): void {
    const target = this.#queued;
    if (!sync || this.#sink.sync === undefined) this.#whenReached(target, done);
    else
      this.#whenReached(target, (failure) => (failure === undefined ? this.#whenSynced(target, done) : done(failure)));
  }

  /**
   * What a receipt log's closing checkpoint binds it to (docs/design.md §6): this recording's id,
   * its lines so far (the header included) and the hash of the last one, without its newline.
   */
  binding(): { id: string; lines: number; lastLineHash: string } {
    return { id: this.header.id, lines: this.#queued, lastLineHash: sha256Prefixed(this.#lastLine.slice(0, -1)) };
  }

  /** Flushes and closes the sink. Later appends still return entries but are not written. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.flush();
      // Lines a full disk still keeps back are lost now, and counted.
      if (this.#stall !== undefined) this.#fail(this.#stall);
      this.#dropPending();
      // The sync of this turn still runs (its callers asked before the close); later ones do not.
      if (this.#turnSync !== undefined || this.#syncing !== undefined)
        await new Promise<void>((resolve) => this.#syncsIdle.push(resolve));
      try {
        await this.#sink.close();
      } catch (error) {
        this.#fail(error);
      }
    })();
    return this.#closed;
  }

  /** Resolves once the first `target` lines are settled, or a stalled write holds them. */
  #reach(target: number): Promise<void> {
    if (this.#settled >= target) return Promise.resolve();
    return new Promise<void>((resolve) => this.#whenReached(target, () => resolve()));
  }

  /**
   * Calls `done` once the first `target` lines are settled: at once when they are; with the
   * failure when some of them were dropped, or a stalled write holds them.
   */
  #whenReached(target: number, done: (failure?: unknown) => void): void {
    if (this.#settled >= target) {
      done(this.#written >= target ? undefined : this.#failed);
      return;
    }
    this.#reachWaiters.push({ target, done });
    this.#schedule(true);
  }

  /** Counts `lines` more settled (written unless `dropped`) and tells the callers waiting for them. */
  #settle(lines: number, dropped = false): void {
    this.#settled += lines;
    if (!dropped) this.#written += lines;
    this.#tellWaiters();
  }

  /** Tells the callers whose lines are settled, and, while a write stalls, those it holds. */
  #tellWaiters(): void {
    if (this.#reachWaiters.length === 0) return;
    const waiting: { target: number; done: (failure?: unknown) => void }[] = [];
    const told: { done: (failure?: unknown) => void; failure: unknown }[] = [];
    for (const waiter of this.#reachWaiters) {
      if (waiter.target <= this.#written) told.push({ done: waiter.done, failure: undefined });
      else if (waiter.target <= this.#settled) told.push({ done: waiter.done, failure: this.#failed });
      else if (this.#stall !== undefined) told.push({ done: waiter.done, failure: this.#stall });
      else waiting.push(waiter);
    }
    this.#reachWaiters = waiting;
    for (const { done, failure } of told) done(failure);
  }

  /** Calls `done` once a sync covers the first `target` lines (all of them written already). */
  #whenSynced(target: number, done: (failure?: unknown) => void): void {
    if (this.#synced >= target || this.#failed !== undefined || this.#closed !== undefined) {
      done(this.#synced >= target ? undefined : this.#failed);
      return;
    }
    const running = this.#syncing;
    if (running !== undefined && running.covers >= target) {
      running.waiters.push(done);
      return;
    }
    this.#syncWaiters.push(done);
    if (running === undefined)
      this.#turnSync ??= setImmediate(() => {
        this.#turnSync = undefined;
        this.#startSync(true);
      });
  }

  /**
   * Syncs the lines settled so far for the callers waiting for a sync; `closing` lets the
   * end-of-turn one run while `close` waits for it. A caller arriving meanwhile waits for the next.
   */
  #startSync(closing = false): void {
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    const covers = this.#written;
    const sink = this.#sink;
    if (
      sink.sync === undefined ||
      this.#synced >= covers ||
      this.#failed !== undefined ||
      (this.#closed !== undefined && !closing)
    ) {
      this.#syncEnded(waiters, this.#failed);
      return;
    }
    const running = { covers, waiters };
    this.#syncing = running;
    sink.sync().then(
      () => {
        this.#synced = Math.max(this.#synced, covers);
        this.#syncEnded(running.waiters);
      },
      (error: unknown) => {
        // After a failed fdatasync the kernel may have dropped what it could not write: no later
        // sync can vouch for these lines, so the writer ends (module doc).
        this.#fail(error);
        this.#syncEnded(running.waiters, this.#failed);
      },
    );
  }

  /** A sync ended (or was not needed): tells its callers, and starts the next one if somebody waits. */
  #syncEnded(waiters: ((failure?: unknown) => void)[], failure?: unknown): void {
    this.#syncing = undefined;
    for (const done of waiters) done(failure);
    if (this.#syncWaiters.length > 0) this.#startSync();
    else if (this.#turnSync === undefined && this.#syncing === undefined)
      for (const idle of this.#syncsIdle.splice(0)) idle();
  }

  #enqueue(line: string): void {
    if (this.#failed !== undefined) {
      this.#dropped += 1;
      return;
    }
    this.#pending.push(line);
    this.#lastLine = line;
    this.#pendingBytes += line.length;
    this.#length += line.length;
    this.#queued += 1;
    this.#schedule(false);
  }

  /**
   * Starts a write of what is queued: at once when `now` (somebody waits for it) or when a full
   * batch is queued, else after {@link WRITE_DELAY_MS}, so the lines of a burst share one write.
   */
  #schedule(now: boolean): void {
    if (this.#draining || this.#pending.length === 0) return;
    if (now || this.#pendingBytes >= WRITE_BATCH_BYTES || this.#closed !== undefined) {
      clearTimeout(this.#delayed);
      this.#delayed = undefined;
      void this.#drain();
      return;
    }
    this.#delayed ??= setTimeout(() => {
      this.#delayed = undefined;
      void this.#drain();
    }, WRITE_DELAY_MS);
  }

  /** Writes batches while somebody waits for them or a full batch is queued. */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#pending.length > 0 && this.#failed === undefined) {
        const batch = this.#pending;
        const lines = batch.length;
        this.#pending = [];
        this.#pendingBytes = 0;
        try {
          // Written synchronously where the sink can: an append to the page cache costs less
          // than the thread pool's hand-offs around it (docs/design.md §5).
          if (!this.#writeNow(batch)) await this.#write(batch);
        } catch (error) {
          this.#stalled(batch, error);
          break;
        }
        if (this.#stall !== undefined) this.#stall = undefined;
        this.#settle(lines);
        const due =
          this.#reachWaiters.length > 0 || this.#pendingBytes >= WRITE_BATCH_BYTES || this.#closed !== undefined;
        if (!due) break;
      }
    } finally {
      this.#draining = false;
      // A stalled write is tried again by the next line, wait or close, not in a loop here.
      if (this.#failed !== undefined) this.#dropPending();
      else if (this.#stall === undefined) this.#schedule(this.#reachWaiters.length > 0);
    }
  }

  /** A write of `batch` failed: its lines go back first in the queue, and their callers are told. */
  #stalled(batch: string[], error: unknown): void {
    const first = this.#stall === undefined;
    this.#stall = error ?? new Error('write failed');
    this.#pending = batch.concat(this.#pending);
    this.#pendingBytes = 0;
    for (const line of this.#pending) this.#pendingBytes += line.length;
    this.#tellWaiters();
    if (first) this.#report(error);
  }

  /** Drops the lines still queued (the writer failed or closed), counted and settled. */
  #dropPending(): void {
    const dropped = this.#pending.length;
    if (dropped === 0) return;
    this.#dropped += dropped;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#settle(dropped, true);
  }

  /** The batch as one write; never one joined string where the sink takes lines. */
  #write(batch: readonly string[]): Promise<void> {
    const sink = this.#sink;
    return sink.writeLines !== undefined ? sink.writeLines(batch) : sink.write(batch.join(''));
  }

  /** The batch written synchronously, when the sink can. */
  #writeNow(batch: readonly string[]): boolean {
    const sink = this.#sink;
    if (sink.writeLinesNow !== undefined) return sink.writeLinesNow(batch);
    return sink.writeNow !== undefined && sink.writeNow(batch.join(''));
  }

  #fail(error: unknown): void {
    if (this.#failed !== undefined) return;
    this.#failed = error ?? new Error('sink failed');
    // A stall that ends the writer was told when it began.
    const told = error === this.#stall;
    this.#stall = undefined;
    if (!told) this.#report(error);
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // a reporter must not break the recorder either
    }
  }
}
