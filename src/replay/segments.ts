/**
 * @module replay/segments
 * Cuts a recording read as a stream into the segments a replay drives one after the other
 * (docs/design.md §8, "Long recordings"): a segment holds at least `window` entries and ends only
 * where no exchange is open — every request before the cut has all its recorded entries before it
 * (a unary answer came; a stream or gRPC call ended). Nothing of a segment then depends on an
 * entry after it, so a segment replays by the ordering rule of `lanes.ts` alone and the drive keeps
 * one segment in memory, not the recording. A recording with an exchange open throughout (a
 * stream left open for the whole session) is one segment, replayed as a whole.
 *
 * Pure: entries in (ascending seq, as a recording file holds them), arrays of entries out.
 */
import { A2aReplayError } from '../errors.js';
import { STREAMING_METHODS } from '../protocol/methods.js';
import type { RecordingEntry } from '../recording/format.js';

/** Default least entries of a segment: large enough that a cut costs nothing, small enough to stay bounded. */
export const DEFAULT_SEGMENT_ENTRIES = 4096;

/** Whether a response leaves its exchange open: an SSE head, or the head of a streaming gRPC call. */
function opensStream(request: RecordingEntry | undefined, response: RecordingEntry): boolean {
  const type = response.http.headers?.['content-type'] ?? '';
  if (type.toLowerCase().startsWith('text/event-stream')) return true;
  if (request?.grpc === undefined) return false;
  const method = request.http.path.split('/').at(-1) ?? '';
  return STREAMING_METHODS.has(method);
}

/** Tracks the open exchanges of a stream of entries, to say where a segment may end. */
class OpenExchanges {
  /** Open exchanges by xid: the request (while its first answer is awaited) or null (a stream). */
  readonly #open = new Map<string, RecordingEntry | null>();

  get size(): number {
    return this.#open.size;
  }

  add(entry: RecordingEntry): void {
    switch (entry.kind) {
      case 'request':
        this.#open.set(entry.xid, entry);
        return;
      case 'response': {
        const request = this.#open.get(entry.xid);
        if (request === undefined) return;
        if (opensStream(request ?? undefined, entry)) this.#open.set(entry.xid, null);
        else this.#open.delete(entry.xid);
        return;
      }
      case 'event':
        return;
      case 'end':
      case 'error':
        this.#open.delete(entry.xid);
        return;
      default: {
        const never: never = entry.kind;
        throw new A2aReplayError('RECORDING_MALFORMED', `unknown entry kind ${String(never)}`);
      }
    }
  }
}

/**
 * The segments of `entries`, each at least `window` entries long but the last. Throws
 * RECORDING_MALFORMED when a seq does not follow the one before it in ascending order.
 */
export async function* segmentsOf(
  entries: AsyncIterable<RecordingEntry> | Iterable<RecordingEntry>,
  window: number = DEFAULT_SEGMENT_ENTRIES,
): AsyncGenerator<RecordingEntry[]> {
  const open = new OpenExchanges();
  let segment: RecordingEntry[] = [];
  let last = -Infinity;
  for await (const entry of entries) {
    if (entry.seq <= last) {
      throw new A2aReplayError(
        'RECORDING_MALFORMED',
        `entry seq ${entry.seq} (xid ${entry.xid}) comes after seq ${last}: a recording is in ascending seq order`,
      );
    }
    last = entry.seq;
    segment.push(entry);
    open.add(entry);
    if (segment.length >= window && open.size === 0) {
      yield segment;
      segment = [];
    }
  }
  if (segment.length > 0) yield segment;
}
