/**
 * @module intercept/sse-parser
 * Incremental Server-Sent Events parser (WHATWG HTML §9.2.6 "Interpreting an event stream"):
 * bytes in, complete events out, whatever the chunk boundaries. Handles CRLF, CR and LF line
 * ends (also split across chunks), multi-line `data`, comments, `event`, `id`, and a UTF-8
 * character split across chunks. With a cap, an event keeps at most that many characters of
 * `data` (and of any one line) and says it was cut, so a stream that never ends an event or a
 * line cannot fill memory.
 */

/** One dispatched event: `data` lines joined with "\n"; `event`/`id` when the stream set them. */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
  /** Set when `data` is only the first {@link SseParser} cap's worth of characters. */
  truncated?: true;
}

/** Room kept beyond the cap in a line for its field name (`data: `), so a capped line still says which field it is. */
const FIELD_ROOM = 16;

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #cap: number;
  /** The current line so far, as it arrived (joined once the line ends), at most cap + FIELD_ROOM characters. */
  #pieces: string[] = [];
  #pieceChars = 0;
  #lineCut = false;
  #dataChars = 0;
  #dataCut = false;
  /** The previous chunk ended in CR: a LF at the start of the next one belongs to it. */
  #pendingCr = false;
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;
  #firstChunk = true;

  /** `maxEventChars`: most characters of `data` kept per event (default: no cap). */
  constructor(maxEventChars = Infinity) {
    this.#cap = maxEventChars;
  }

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#firstChunk && text.length > 0) {
      this.#firstChunk = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.#consume(text);
  }

  /**
   * Ends the stream. An event without its closing blank line is not dispatched (as the spec
   * says); `incomplete` tells whether one was cut off.
   */
  end(): { events: SseEvent[]; incomplete: boolean } {
    const events = this.#consume(this.#decoder.decode());
    const incomplete = this.#pieces.length > 0 || this.#data.length > 0 || this.#lineCut;
    this.#pieces = [];
    this.#pieceChars = 0;
    this.#lineCut = false;
    this.#data = [];
    this.#dataChars = 0;
    this.#dataCut = false;
    this.#event = undefined;
    this.#id = undefined;
    return { events, incomplete };
  }

  /**
   * Splits `text` into lines. Only the new text is scanned, and a line cut across chunks is kept
   * as pieces joined once when it completes, so the cost is linear in the stream's size.
   */
  #consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#pendingCr) {
      this.#pendingCr = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    for (;;) {
      let end = -1;
      for (let i = start; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || c === 13) {
          end = i;
          break;
        }
      }
      if (end < 0) break;
      let line = text.slice(start, end);
      let cut = this.#lineCut;
      if (this.#pieces.length > 0 || cut) {
        this.#hold(line);
        line = this.#pieces.join('');
        this.#pieces = [];
        this.#pieceChars = 0;
        this.#lineCut = false;
      } else if (line.length > this.#cap + FIELD_ROOM) {
        line = line.slice(0, this.#cap + FIELD_ROOM);
        cut = true;
      }
      if (text.charCodeAt(end) === 13) {
        if (end + 1 < text.length) {
          start = text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
        } else {
          this.#pendingCr = true;
          start = end + 1;
        }
      } else {
        start = end + 1;
      }
      const event = this.#line(line, cut);
      if (event !== undefined) events.push(event);
    }
    if (start < text.length) this.#hold(text.slice(start));
    return events;
  }

  /** Keeps part of an unfinished line, up to the cap (and room for its field name). */
  #hold(piece: string): void {
    const room = this.#cap + FIELD_ROOM - this.#pieceChars;
    if (piece.length > room) {
      this.#lineCut = true;
      if (room <= 0) return;
      piece = piece.slice(0, room);
    }
    this.#pieces.push(piece);
    this.#pieceChars += piece.length;
  }

  /** One line; `cut` when only its first characters were kept. */
  #line(line: string, cut = false): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data': {
        // Lines after the first join with "\n": that counts towards the cap too.
        const room = this.#cap - this.#dataChars - (this.#data.length > 0 ? 1 : 0);
        if (cut || value.length > room) this.#dataCut = true;
        if (room < 0) break;
        const kept = value.length > room ? value.slice(0, room) : value;
        this.#data.push(kept);
        this.#dataChars += kept.length + (this.#data.length > 1 ? 1 : 0);
        break;
      }
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      default:
        // `retry` and unknown fields do not change what is recorded
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const type = this.#event;
    const id = this.#id;
    const truncated = this.#dataCut;
    this.#data = [];
    this.#dataChars = 0;
    this.#dataCut = false;
    this.#event = undefined;
    this.#id = undefined;
    if (data.length === 0) return undefined;
    const event: SseEvent = { data: data.join('\n') };
    if (type !== undefined && type !== '') event.event = type;
    if (id !== undefined) event.id = id;
    if (truncated) event.truncated = true;
    return event;
  }
}
