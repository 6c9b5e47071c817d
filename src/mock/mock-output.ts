/**
 * @module mock/mock-output
 * What the mock sends for one exchange, transport-agnostic (docs/design.md §13): a whole unary
 * answer, or an SSE head, its events and its close (over gRPC: a unary answer or status, or a
 * stream's messages and its status). The node:http server and the in-process fetch
 * write these out; {@link OutputQueue} hands them over as they are released.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { EntryGrpc } from '../recording/format.js';

export type MockOutput =
  /**
   * A whole answer: status, headers and body; over gRPC (docs/design.md §16) `grpc` holds its
   * status (an error has no body), and `body` is the message's ProtoJSON.
   */
  | {
      kind: 'unary';
      status: number;
      headers: Record<string, string>;
      body: JsonValue | undefined;
      text: string;
      grpc?: EntryGrpc;
    }
  /** The head of an SSE answer. */
  | { kind: 'head'; status: number; headers: Record<string, string> }
  /** One SSE event, its `data` already serialized. */
  | { kind: 'event'; data: string; event?: string; id?: string }
  /** The answer ends normally (the stream closes); over gRPC with the recorded status. */
  | { kind: 'end'; grpc?: EntryGrpc }
  /** The recording shows the exchange broken before any answer: drop the connection. */
  | { kind: 'break'; reason: string };

/** One SSE event as text on the wire. */
export function eventFrame(output: Extract<MockOutput, { kind: 'event' }>): string {
  let frame = '';
  if (output.event !== undefined) frame += `event: ${output.event}\n`;
  if (output.id !== undefined) frame += `id: ${output.id}\n`;
  for (const line of output.data.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/**
 * A queue of outputs with one reader; closed after the last output or when the reader leaves.
 * An output counts as written once the reader, having taken it, asks for the next one (the
 * node:http and gRPC writers write each output before they ask again): {@link written} resolves
 * when every output pushed so far is, or the reader left.
 */
export class OutputQueue implements AsyncIterable<MockOutput> {
  readonly #items: MockOutput[] = [];
  #wake: (() => void) | undefined;
  #closed = false;
  /** Outputs pushed and not yet written. */
  #unwritten = 0;
  #cancelled = false;
  readonly #flushWaiters: (() => void)[] = [];
  /** Called once when the reader leaves before the queue ended (the client hung up). */
  onCancel: (() => void) | undefined;

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether every output pushed so far was written (or the reader left, so none ever will be). */
  get flushed(): boolean {
    return this.#unwritten === 0 || this.#cancelled;
  }

  /** Resolves once {@link flushed}. */
  written(): Promise<void> {
    if (this.flushed) return Promise.resolve();
    return new Promise((resolve) => this.#flushWaiters.push(resolve));
  }

  #settle(): void {
    if (!this.flushed) return;
    for (const resolve of this.#flushWaiters.splice(0)) resolve();
  }

  push(output: MockOutput): void {
    if (this.#closed) return;
    this.#items.push(output);
    this.#unwritten += 1;
    if (output.kind === 'unary' || output.kind === 'end' || output.kind === 'break') this.#closed = true;
    this.#wake?.();
  }

  /** Ends the queue with nothing more to send (the mock is closing). */
  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  /** The reader left: nothing more will be read. */
  cancel(): void {
    if (this.#closed && this.#items.length === 0) return;
    this.#closed = true;
    this.#cancelled = true;
    this.#items.length = 0;
    this.#wake?.();
    this.#settle();
    this.onCancel?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<MockOutput> {
    for (;;) {
      const next = this.#items.shift();
      if (next !== undefined) {
        try {
          yield next;
        } finally {
          // The reader came back (or left): what it took is written.
          this.#unwritten -= 1;
          this.#settle();
        }
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}
