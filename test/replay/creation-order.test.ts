/**
 * Tasks created in an order the recording proves are created in that order on replay
 * (docs/design.md §8, "Lanes"): `golden/budget-interrupt` creates three tasks, each SendMessage sent
 * after the one before it was answered, then lists them (ListTasks lists newest first). Replayed
 * with `run --peer URL` (the library's `runRecording` and `replayPeerOpener`) against a real
 * reference peer behind a relay on 127.0.0.1 that holds the first create until the peer answered a
 * second one (a bounded hold): a replay that sent the creates at once would have the second task
 * created first, and ListTasks would drift though the peer did as recorded.
 */
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecording } from '../../src/public/intercept.js';
import { ManualClock } from '../../src/public/core.js';
import { DETERMINISTIC_EPOCH, type RunningPeer, startPeer } from '../../src/public/peer.js';
import { TOOL_NAME, recordedPeerSetup, replayPeerOpener, runRecording } from '../../src/public/replay.js';

const RECORDING = join(import.meta.dirname, '../../golden/budget-interrupt/recording.jsonl');

/** How long the relay holds the first create when no second one comes (the replay then waits for it). */
const HOLD_MS = 1500;

/** A JSON-RPC SendMessage that names no task: it creates one. Its message id, else undefined. */
function createdBy(body: string): string | undefined {
  try {
    const call = JSON.parse(body) as {
      method?: string;
      params?: { message?: { taskId?: string; messageId?: string } };
    };
    const message = call.params?.message;
    return call.method === 'SendMessage' && message?.taskId === undefined ? message?.messageId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A relay in front of `peer`: every request goes on as it came, but the first task-creating one,
 * held until the peer answered another create or `holdMs` passed, or for good with no `holdMs`.
 * Says in which order the creates reached the peer, and whether another create overtook the held one.
 */
class HoldingRelay {
  readonly creates: string[] = [];
  overtaken = false;
  #release: (() => void) | undefined;
  #holding = false;
  #closed = false;
  readonly #server = createServer((req, res) => void this.#relay(req, res));

  private constructor(
    readonly peer: URL,
    readonly holdMs: number | undefined,
  ) {}

  static async start(peerUrl: string, holdMs?: number): Promise<HoldingRelay> {
    const relay = new HoldingRelay(new URL(peerUrl), holdMs);
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async #relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const create = createdBy(body.toString('utf8'));
    if (create !== undefined && !this.#holding) {
      this.#holding = true;
      await new Promise<void>((resolve) => {
        const timer = this.holdMs === undefined ? undefined : setTimeout(resolve, this.holdMs);
        this.#release = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#release = undefined;
    }
    if (this.#closed) return;
    if (create !== undefined) this.creates.push(create);
    const out = request(
      {
        host: this.peer.hostname,
        port: this.peer.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: this.peer.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // A later create answered while the first is held: the peer made its task first.
        if (create !== undefined)
          answer.on('end', () => {
            this.overtaken ||= this.#release !== undefined;
            if (this.holdMs !== undefined) this.#release?.();
          });
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#release?.();
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** A reference peer set up as the recorded one, run as a live peer `run --peer` replays against. */
async function recordedPeer(): Promise<RunningPeer> {
  const { header, entries } = await readRecording(RECORDING);
  const recorded = recordedPeerSetup(entries, header);
  return startPeer({
    deterministic: recorded?.deterministic ?? true,
    control: true,
    clock: new ManualClock(recorded?.clockOriginMs ?? Date.parse(DETERMINISTIC_EPOCH)),
    seed: recorded?.seed ?? 0,
    stepMs: recorded?.stepMs ?? 1000,
    legacyPause: recorded?.legacyPause ?? false,
    a2aVersion: recorded?.a2aVersion ?? '1.0',
    port: 0,
  });
}

describe('tasks the recording created one after another', () => {
  it('are created in recorded order on replay, so ListTasks lists them as recorded', async () => {
    const peer = await recordedPeer();
    const relay = await HoldingRelay.start(peer.url, HOLD_MS);
    try {
      const result = await runRecording(RECORDING, {
        openPeer: replayPeerOpener({ peer: relay.url }),
        tool: TOOL_NAME,
        timeoutMs: 20_000,
        pace: { kind: 'scaled', factor: 1000 },
      });
      expect(result.drift).toEqual([]);
      expect(result.outcome).toBe('match');
      expect(relay.overtaken).toBe(false);
      expect(relay.creates).toEqual(['budget-m1', 'budget-m2', 'budget-m3']);
    } finally {
      await relay.close();
      await peer.close();
    }
  }, 30_000);

  it('are sent once their wait for an earlier create passed its deadline, that create never answered', async () => {
    const peer = await recordedPeer();
    const relay = await HoldingRelay.start(peer.url);
    try {
      const result = await runRecording(RECORDING, {
        openPeer: replayPeerOpener({ peer: relay.url }),
        tool: TOOL_NAME,
        timeoutMs: 500,
      });
      expect(result.outcome).toBe('drift');
      const timeouts = result.drift.flatMap((d) =>
        d.type === 'timeout' ? [[d.request.seq, d.waitingFor.seq, d.waitedMs]] : [],
      );
      expect(timeouts).toContainEqual([3, 2, 500]);
      // Their own tasks lost nothing: the later creates went, and only the first task's lane stopped.
      expect(relay.creates).toEqual(['budget-m2', 'budget-m3']);
      const stopped = result.drift.flatMap((d) =>
        d.type === 'missing' && /not sent/.test(d.reason) ? [d.reason] : [],
      );
      expect(stopped.length).toBeGreaterThan(0);
      expect(new Set(stopped)).toEqual(
        new Set(['not sent: lane task:task-6e6ed95a-0001 stopped after a timeout before seq 15']),
      );
    } finally {
      await relay.close();
      await peer.close();
    }
  }, 30_000);
});
