/**
 * The recorder's background submission of checkpoints to witnesses: driven timers, a witness
 * written from the spec on 127.0.0.1 behind a switch that makes it unreachable.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SealedLine } from '../../src/receipts/chain.js';
import type { WitnessRecord } from '../../src/receipts/cosignature-file.js';
import { Keyring } from '../../src/receipts/keys.js';
import { noteKeyName } from '../../src/receipts/log-tree.js';
import { type RetryTimers, WitnessSubmitter } from '../../src/receipts/witness-submitter.js';
import { parseCosignerKey } from '../../src/tlog/cosignature.js';
import type { WitnessPost } from '../../src/tlog/witness-client.js';
import { httpWitnessPost } from '../../src/tlog/witness-http.js';
import { buildLogLines, fixedKey } from './fixtures.js';
import { type TestWitness, startTestWitness } from '../tlog/test-witness.js';

const key = fixedKey('sub', 'sub');
const logLines = buildLogLines({ count: 12, keyring: new Keyring([key]), checkpointEvery: 4 });

/** The log's lines as the writer hands them on. */
function sealed(from: number, to: number): SealedLine[] {
  return logLines.slice(from, to).map((text) => ({ line: JSON.parse(text) as SealedLine['line'], text, hash: '' }));
}

/** Timers that fire only when the test says. */
class DrivenTimers implements RetryTimers {
  readonly waiting = new Map<number, { run: () => void; ms: number }>();
  #next = 0;
  setTimeout(run: () => void, ms: number): unknown {
    this.#next++;
    this.waiting.set(this.#next, { run, ms });
    return this.#next;
  }
  clearTimeout(handle: unknown): void {
    this.waiting.delete(handle as number);
  }
  fire(): number[] {
    const due = [...this.waiting.values()];
    this.waiting.clear();
    for (const timer of due) timer.run();
    return due.map((t) => t.ms);
  }
}

let witness: TestWitness;
let reachable: boolean;
let said: string[];
let stored: WitnessRecord[];
let timers: DrivenTimers;
const http = httpWitnessPost();
/** Requests in flight: the tests wait on them, never on a delay. */
const inflight = new Set<Promise<unknown>>();
const post: WitnessPost = (url, body) => {
  const sent = reachable ? http(url, body) : Promise.reject(new Error('connect ECONNREFUSED'));
  inflight.add(sent);
  void sent.catch(() => undefined).finally(() => inflight.delete(sent));
  return sent;
};

function submitter(): WitnessSubmitter {
  return new WitnessSubmitter({
    targets: [{ url: witness.url, witness: parseCosignerKey(witness.vkey) }],
    post,
    timers,
    store: async (record) => {
      stored.push(record);
    },
    say: (line) => said.push(line),
  });
}

/** Waits until no request is in flight and the submitter has handled every answer. */
async function settle(): Promise<void> {
  do {
    await Promise.allSettled([...inflight]);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  } while (inflight.size > 0);
}

beforeEach(async () => {
  witness = await startTestWitness('witness.test/sub', [
    {
      originPrefix: `${noteKeyName('sub')}/`,
      name: noteKeyName('sub'),
      publicKey: Buffer.from(key.ed25519PublicKey()!),
    },
  ]);
  reachable = true;
  said = [];
  stored = [];
  timers = new DrivenTimers();
});

afterEach(async () => {
  await witness.close();
});

describe('WitnessSubmitter', () => {
  it('submits each checkpoint as it becomes durable and keeps the cosigned notes', async () => {
    const s = submitter();
    s.onDurable(sealed(0, logLines.length));
    await s.close();
    expect(stored.at(-1)).toMatchObject({ type: 'Cosigned', size: logLines.length - 1 });
    expect(stored.every((r) => r.type === 'Cosigned')).toBe(true);
    expect(said).toEqual([]);
  });

  it('says an outage once, retries with a doubling delay, and says when the witness answers again', async () => {
    const s = submitter();
    reachable = false;
    s.onDurable(sealed(0, 6));
    await settle();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/witness witness.test\/sub at .* is unreachable \(connect ECONNREFUSED\): retrying/);
    expect(timers.fire()).toEqual([500]);
    await settle();
    expect(timers.fire()).toEqual([1000]);
    await settle();
    expect(said).toHaveLength(1);
    reachable = true;
    s.onDurable(sealed(6, logLines.length));
    timers.fire();
    await settle();
    expect(said.at(-1)).toBe('witness witness.test/sub is reachable again');
    await s.close();
    expect(stored.at(-1)).toMatchObject({ type: 'Cosigned', size: logLines.length - 1 });
  });

  it('gives up at close after a few attempts and says which checkpoint went uncosigned', async () => {
    const s = submitter();
    reachable = false;
    s.onDurable(sealed(0, logLines.length));
    await settle();
    const closed = s.close();
    for (let i = 0; i < 5; i++) {
      await settle();
      timers.fire();
    }
    await closed;
    expect(said.at(-1)).toMatch(`did not cosign the checkpoint of ${logLines.length - 1} lines`);
    expect(stored).toEqual([]);
  });
});
