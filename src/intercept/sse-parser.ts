/**
 * @module intercept/sse-parser
 * Incremental Server-Sent Events parser (WHATWG HTML §9.2.6 "Interpreting an event stream"):
 * bytes in, complete events out, whatever the chunk boundaries. Handles CRLF, CR and LF line
 * ends (also split across chunks), multi-line `data`, comments, `event`, `id`, and a UTF-8
 * character split across chunks.
 */

/** One dispatched event: `data` lines joined with "\n"; `event`/`id` when the stream set them. */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  /** The current line so far, as it arrived (joined once the line ends). */
  #pieces: string[] = [];
  /** The previous chunk ended in CR: a LF at the start of the next one belongs to it. */
  #pendingCr = false;
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;
  #firstChunk = true;

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
    const incomplete = this.#pieces.length > 0 || this.#data.length > 0;
    this.#pieces = [];
    this.#data = [];
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
      const piece = text.slice(start, end);
      let line = piece;
      if (this.#pieces.length > 0) {
        this.#pieces.push(piece);
        line = this.#pieces.join('');
        this.#pieces = [];
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
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    if (start < text.length) this.#pieces.push(text.slice(start));
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
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
    this.#data = [];
    this.#event = undefined;
    this.#id = undefined;
    if (data.length === 0) return undefined;
    const event: SseEvent = { data: data.join('\n') };
    if (type !== undefined && type !== '') event.event = type;
    if (id !== undefined) event.id = id;
    return event;
  }
}
