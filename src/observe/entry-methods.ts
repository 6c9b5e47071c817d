/**
 * @module observe/entry-methods
 * The A2A method of each entry's exchange, for the `a2a.method.name` of the spans an entry opens
 * (docs/design.md §7): read from the exchange's request in its binding (`observe/call-view`), and
 * remembered by exchange id until its `end` or `error`, within a bounded memory (§14.6).
 */
import { BoundedMap } from '../bounded-map.js';
import { CONTROL_METHODS } from '../protocol/methods.js';
import { isKnownMethod } from '../protocol/params.js';
import type { RecordingEntry } from '../recording/format.js';
import { type ObservedRequest, readObservedRequest, rememberedRequestRead } from './dialect-view.js';

/** Exchanges whose method is remembered: as many as the fact reader remembers finished ones. */
const METHOD_MEMORY = 4096;

export class EntryMethods {
  readonly #byXid = new BoundedMap<string, string>(METHOD_MEMORY);

  /**
   * `entry` read as a request in its binding and dialect (`readObservedRequest`,
   * observe/dialect-view), once for both the fact reader and {@link methodOf}; undefined for an
   * entry of another kind, or one that cannot be read (whoever reads it again meets what stopped it).
   * A request the recorder that wrote it read already is not read again (`rememberRequestRead`).
   */
  requestOf(entry: RecordingEntry): ObservedRequest | undefined {
    try {
      if (entry.kind !== 'request') return undefined;
      return rememberedRequestRead(entry) ?? readObservedRequest(entry);
    } catch {
      return undefined;
    }
  }

  /**
   * The A2A method of `entry`'s exchange (`SendMessage`, `ResumeTask`, ...), undefined when the
   * exchange is no A2A call: a control call, an unknown method, a request not read as a call, or
   * an exchange whose request was never seen. Call once per entry, in `seq` order. Never throws:
   * an entry that is no recording entry (which the fact reader reports) has no method. `read` is
   * the entry's {@link requestOf}, when it was read: the request is then not read again.
   */
  methodOf(entry: RecordingEntry, read?: ObservedRequest): string | undefined {
    try {
      return this.#methodOf(entry, read);
    } catch {
      return undefined;
    }
  }

  #methodOf(entry: RecordingEntry, read: ObservedRequest | undefined): string | undefined {
    if (entry.kind === 'request') {
      const view = read ?? readObservedRequest(entry);
      const method = view.kind === 'call' && isA2aMethod(view.method) ? view.method : undefined;
      if (method === undefined) this.#byXid.delete(entry.xid);
      else this.#byXid.set(entry.xid, method);
      return method;
    }
    const method = this.#byXid.get(entry.xid);
    if (entry.kind === 'end' || entry.kind === 'error') this.#byXid.delete(entry.xid);
    return method;
  }
}

function isA2aMethod(method: string): boolean {
  return isKnownMethod(method) && !(CONTROL_METHODS as readonly string[]).includes(method);
}
