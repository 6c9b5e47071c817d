/**
 * @module http/sse-writer
 * One Server-Sent Events response on `node:http`: the head, frames written in order (each
 * promise settles once the frame was handed to the socket, or the client left), and the end.
 * The frames' text comes from the caller, so this module knows SSE framing only.
 */
import type { ServerResponse } from 'node:http';

/** An open SSE response. */
export interface SseWriter {
  /** Writes one `data:` frame (with an `event:` line when `event` is given). */
  write(data: string, event?: string): Promise<void>;
  /** Ends the response, after a last frame when given. */
  end(last?: { data: string; event?: string }): void;
  /** Whether the response is over (ended, or the client left). */
  readonly closed: boolean;
  /** Called once when the response is over. */
  onClose(listener: () => void): void;
}

/** `data: ...` framing of one event (`data` holds no newline: it is one line of JSON). */
export function sseFrame(data: string, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`;
}

/** Opens an SSE response (status 200, `text/event-stream`, no caching). */
export function openSse(res: ServerResponse): SseWriter {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  const waiting = new Set<() => void>();
  const listeners: (() => void)[] = [];
  res.on('close', () => {
    for (const done of waiting) done();
    waiting.clear();
    for (const listener of listeners.splice(0)) listener();
  });
  return {
    write(data: string, event?: string): Promise<void> {
      if (res.writableEnded || res.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          waiting.delete(done);
          resolve();
        };
        waiting.add(done);
        res.write(sseFrame(data, event), done);
      });
    },
    end(last?: { data: string; event?: string }): void {
      if (res.writableEnded) return;
      res.end(last === undefined ? undefined : sseFrame(last.data, last.event));
    },
    get closed(): boolean {
      return res.writableEnded || res.destroyed;
    },
    onClose(listener: () => void): void {
      if (res.destroyed || (res.writableEnded && res.writableFinished)) listener();
      else listeners.push(listener);
    },
  };
}
