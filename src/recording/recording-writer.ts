/**
 * @module recording/recording-writer
 * Writes a recording (docs/design.md §5): the header line first, then one canonical-JSON line per entry
 * in the order appended. `append` is synchronous and never throws: it stamps `seq` and `at` and
 * queues the line; queued lines go to the sink in batches, so a slow or failing disk never blocks
 * or breaks the exchange being recorded. A failing sink is reported once through `onError`.
 */
import { type JsonValue, canonicalJson } from '../canonical/canonical-json.js';
import { type Clock, isoAt } from '../clock.js';
import type { IdSource } from '../ids.js';
import { TOOL_NAME } from '../version.js';
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
  /** Called once, with the first sink failure; later lines are dropped. */
  onError?: (error: unknown) => void;
}

/**
 * Serializes one line: RFC 8785 form, so equal entries are equal bytes; a lone surrogate a
 * client sent is kept as a `\uXXXX` escape (docs/design.md §5).
 */
export function serializeLine(value: RecordingHeader | RecordingEntry): string {
  try {
    return `${canonicalJson(value, { loneSurrogates: 'escape' })}\n`;
  } catch {
    // Not JSON at all (cannot come from a parsed body): keep it as well-formed text rather than
    // lose the entry.
    const { body, ...rest } = value as RecordingEntry;
    const text = JSON.stringify(body ?? null).replace(/\\ud[89ab][0-9a-f]{2}|\\ud[c-f][0-9a-f]{2}/gi, '\\ufffd');
    return `${canonicalJson({ ...rest, bodyText: text })}\n`;
  }
}

export class RecordingWriter implements EntryWriter {
  readonly header: RecordingHeader;
  readonly #sink: LineSink;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  #seq = 0;
  #pending: string[] = [];
  #writing: Promise<void> | undefined;
  #failed: unknown;
  #closed: Promise<void> | undefined;
  #dropped = 0;
  /** The sync running now, and the one that callers arriving meanwhile share (group commit). */
  #syncing: Promise<void> | undefined;
  #nextSync: Promise<void> | undefined;

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

  /** True once the sink has failed (later lines are dropped). */
  get failed(): boolean {
    return this.#failed !== undefined;
  }

  /** Lines that did not reach the sink because it failed (counted for the shutdown report). */
  get dropped(): number {
    return this.#dropped;
  }

  append(draft: EntryDraft): RecordingEntry {
    this.#seq += 1;
    const entry: RecordingEntry = { seq: this.#seq, at: isoAt(this.#clock.now()), ...draft };
    if (this.#closed === undefined) this.#enqueue(serializeLine(entry));
    return entry;
  }

  /** Resolves when every line appended so far has reached the sink (or the sink failed). */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  /**
   * Resolves when every line appended so far has reached the sink and, with `sync`, been made
   * durable (the sink's fsync). Callers that arrive while a sync runs share the next one. Never
   * rejects: a failing sink is reported through `onError`, as for writes.
   */
  durable(sync: boolean): Promise<void> {
    if (!sync || this.#sink.sync === undefined) return this.flush();
    if (this.#nextSync) return this.#nextSync;
    const run = async (): Promise<void> => {
      await this.flush();
      if (this.#failed !== undefined || this.#closed !== undefined) return;
      try {
        await this.#sink.sync?.();
      } catch (error) {
        this.#fail(error);
      }
    };
    const start = (): Promise<void> => {
      const running = run().finally(() => {
        if (this.#syncing === running) this.#syncing = undefined;
      });
      this.#syncing = running;
      return running;
    };
    if (this.#syncing === undefined) return start();
    const next = this.#syncing.then(() => {
      this.#nextSync = undefined;
      return start();
    });
    this.#nextSync = next;
    return next;
  }

  /** Flushes and closes the sink. Later appends still return entries but are not written. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.flush();
      try {
        await this.#sink.close();
      } catch (error) {
        this.#fail(error);
      }
    })();
    return this.#closed;
  }

  #enqueue(line: string): void {
    if (this.#failed !== undefined) {
      this.#dropped += 1;
      return;
    }
    this.#pending.push(line);
    this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && this.#failed === undefined) {
        const lines = this.#pending.length;
        const batch = this.#pending.join('');
        this.#pending = [];
        try {
          await this.#sink.write(batch);
        } catch (error) {
          this.#dropped += lines;
          this.#fail(error);
        }
      }
    } finally {
      this.#dropped += this.#pending.length;
      this.#pending = [];
      this.#writing = undefined;
    }
  }

  #fail(error: unknown): void {
    if (this.#failed !== undefined) return;
    this.#failed = error ?? new Error('sink failed');
    try {
      this.#onError(error);
    } catch {
      // a reporter must not break the recorder either
    }
  }
}
