/**
 * `peer --store DIR` shows a stream a pause, a resume or an end only once that change is on disk
 * (docs/design.md §4 "The store"): the store's sync is held by the test, and what the real peer
 * wrote to a real SSE stream is read off its responses while the sync waits. Events of a task keep
 * their order, and the stream of a finished task ends only after its last event went out. A
 * GetTask or ListTasks answer, and an error naming the task's state, wait for the sync as well.
 * While a sync is held, where a task stands is read off the store file (written, not yet durable).
 */
import { fsync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { StoreSync } from '../../src/peer/peer-store.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import { PeerClient, label } from './peer-client.js';

/**
 * The store's fsync, held while `holding` until the test lets the held ones run; while `failing`,
 * a sync fails with EIO.
 */
class HeldSync {
  holding = false;
  failing = false;
  readonly #held: (() => void)[] = [];
  #wake: (() => void)[] = [];

  readonly sync: StoreSync = (fd, done) => {
    if (this.failing) {
      done(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
      return;
    }
    if (!this.holding) {
      fsync(fd, done);
      return;
    }
    this.#held.push(() => fsync(fd, done));
    for (const wake of this.#wake.splice(0)) wake();
  };

  get held(): number {
    return this.#held.length;
  }

  /** Resolves once a sync is held. */
  async untilHeld(): Promise<void> {
    while (this.#held.length === 0) await new Promise<void>((resolve) => this.#wake.push(resolve));
  }

  /** Stops holding and runs every held sync. */
  releaseAll(): void {
    this.holding = false;
    for (const run of this.#held.splice(0)) run();
  }
}

/**
 * What the peer handed to the sockets of its SSE streams, in the order they opened: frames and
 * `end`; and the whole bodies of its other answers, in the order it ended them.
 */
class StreamWrites {
  readonly answers: string[] = [];
  readonly #streams: string[][] = [];
  #wake: (() => void)[] = [];

  watch(res: ServerResponse): void {
    const log: string[] = [];
    let stream = false;
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      stream = JSON.stringify(args).includes('text/event-stream');
      if (stream) {
        this.#streams.push(log);
        for (const wake of this.#wake.splice(0)) wake();
      }
      return writeHead(...args);
    }) as typeof res.writeHead;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      for (const line of String(chunk).split('\n')) {
        if (stream && line.startsWith('data: ')) {
          log.push(label((JSON.parse(line.slice('data: '.length)) as { result: StreamResponse }).result));
        }
      }
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      if (stream) log.push('end');
      else this.answers.push(typeof args[0] === 'string' || args[0] instanceof Buffer ? String(args[0]) : '');
      return end(...args);
    }) as typeof res.end;
  }

  /** Resolves once `n` streams opened (the peer subscribes a stream in the turn it opens it). */
  async opened(n: number): Promise<void> {
    while (this.#streams.length < n) await new Promise<void>((resolve) => this.#wake.push(resolve));
  }

  /** What stream `i` (0 the first opened) was handed so far. */
  of(i: number): string[] {
    return [...(this.#streams[i] ?? [])];
  }
}

let dir = '';
const peers: RunningPeer[] = [];
const gates: HeldSync[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-store-durable-'));
});
afterEach(async () => {
  // A peer closes its store once its lines are synced.
  for (const gate of gates.splice(0)) gate.releaseAll();
  for (const peer of peers.splice(0)) await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** The state of task `id` in the last line of it the store file holds (written, durable or not). */
async function storedState(id: string): Promise<string | undefined> {
  let state: string | undefined;
  for (const line of (await readFile(join(dir, 'store', 'peer-store.jsonl'), 'utf8')).split('\n')) {
    const value = line === '' ? {} : (JSON.parse(line) as { kind?: string; task?: { task?: Task } });
    if (value.kind === 'task' && value.task?.task?.id === id) state = value.task.task.status.state;
  }
  return state;
}

/** Waits (bounded) until the store file shows task `id` in `state`: the call that moves it is in flight. */
async function untilStored(id: string, state: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if ((await storedState(id)) === state) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the store never showed task ${id} ${state}`);
}

async function storePeer(gate: HeldSync, writes: StreamWrites): Promise<PeerClient> {
  gates.push(gate);
  const peer = await startPeer({
    deterministic: true,
    storeDir: join(dir, 'store'),
    storeSync: gate.sync,
    log: () => undefined,
    wrapHandler: (handler) => (req, res) => {
      writes.watch(res);
      handler(req, res);
    },
  });
  peers.push(peer);
  return new PeerClient(peer.url);
}

it('streams a PAUSED event only once the pause is on disk, and no later event or the end overtakes it', async () => {
  const gate = new HeldSync();
  const writes = new StreamWrites();
  const client = await storePeer(gate, writes);
  const task = await client.start('work:1 await:go work:1');
  const stream = await client.stream('SubscribeToTask', { id: task.id });
  await stream.waitFor(1);

  gate.holding = true;
  // The step ends (an artifact), then the script parks: the pause is written, its sync held.
  const firstMove = client.advance(1000);
  await gate.untilHeld();
  expect(await storedState(task.id)).toBe('TASK_STATE_PAUSED');
  expect(writes.of(0)).toEqual(['task:TASK_STATE_WORKING', 'artifact:artifact-1-1']);

  // The resume, the next step's artifact and the end all happen while the pause's sync waits.
  const fired = client.control<{ resumed: string[] }>('FireEvent', { name: 'go' });
  await untilStored(task.id, 'TASK_STATE_WORKING');
  const secondMove = client.advance(1000);
  await untilStored(task.id, 'TASK_STATE_COMPLETED');
  expect(gate.held).toBe(1);
  expect(writes.of(0)).toEqual(['task:TASK_STATE_WORKING', 'artifact:artifact-1-1']);

  gate.releaseAll();
  expect((await stream.untilClosed()).map(label)).toEqual([
    'task:TASK_STATE_WORKING',
    'artifact:artifact-1-1',
    'status:TASK_STATE_PAUSED',
    'status:TASK_STATE_WORKING',
    'artifact:artifact-3-1',
    'status:TASK_STATE_COMPLETED',
  ]);
  expect(writes.of(0).at(-1)).toBe('end');
  await firstMove;
  expect((await fired).resumed).toEqual([task.id]);
  await secondMove;
});

it('ends the stream without the PAUSED event when the store cannot sync the pause', async () => {
  const gate = new HeldSync();
  const writes = new StreamWrites();
  const client = await storePeer(gate, writes);
  const task = await client.start('work:1 await:go work:1');
  const stream = await client.stream('SubscribeToTask', { id: task.id });
  await stream.waitFor(1);

  gate.failing = true;
  const moved = await client.call('AdvanceClock', { ms: 1000 }, '/control');
  expect(moved.error?.message).toContain('EIO');
  expect(writes.of(0)).toEqual(['task:TASK_STATE_WORKING', 'artifact:artifact-1-1', 'end']);
  expect((await stream.untilClosed()).map(label)).toEqual(['task:TASK_STATE_WORKING', 'artifact:artifact-1-1']);
  // Nothing more is acknowledged, not even once the disk answers again; the stop says so.
  gate.failing = false;
  const again = await client.call('CancelTask', { id: task.id });
  expect(again.error?.message).toContain('cannot sync the peer store');
  await expect(peers.splice(0)[0]?.close()).rejects.toThrow('cannot sync the peer store');
});

it('opens a stream on a task whose pause is not on disk yet with the Task only once the pause is', async () => {
  const gate = new HeldSync();
  const writes = new StreamWrites();
  const client = await storePeer(gate, writes);
  gate.holding = true;
  // The task parks at once; the answer waits for the pause's sync, the store holds it.
  const started = client.start('await:go');
  await gate.untilHeld();
  const [id] = (await readFile(join(dir, 'store', 'peer-store.jsonl'), 'utf8')).match(/task-[\w-]+/) ?? [];
  expect(await storedState(id as string)).toBe('TASK_STATE_PAUSED');

  const opening = client.stream('SubscribeToTask', { id });
  await writes.opened(1);
  expect(writes.of(0)).toEqual([]);
  gate.releaseAll();
  const stream = await opening;
  expect(label(await stream.next())).toBe('task:TASK_STATE_PAUSED');
  expect((await started).status.state).toBe('TASK_STATE_PAUSED');
});

it('answers GetTask, ListTasks and an error naming a paused task only once the pause is on disk', async () => {
  const gate = new HeldSync();
  const writes = new StreamWrites();
  const client = await storePeer(gate, writes);
  const task = await client.start('work:1 await:go work:1');
  gate.holding = true;
  const moved = client.advance(1000);
  await gate.untilHeld();
  expect(await storedState(task.id)).toBe('TASK_STATE_PAUSED');

  const got = client.getTask(task.id);
  const listed = client.result<{ tasks: Task[] }>('ListTasks', {});
  // A follow-up message to a paused task is refused naming its state (TASK_STATE_PAUSED).
  const refused = client.call('SendMessage', {
    message: { messageId: 'm-late', role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'more' }] },
  });
  // Calls that wait for nothing go round while those three are in the peer: none of them is answered.
  for (let i = 0; i < 3; i++) await client.control('GetClock', {});
  expect(writes.answers.filter((a) => a.includes('PAUSED'))).toEqual([]);

  gate.releaseAll();
  const paused = await got;
  expect(paused.status.state).toBe('TASK_STATE_PAUSED');
  expect((await listed).tasks.map((t) => t.status.state)).toEqual(['TASK_STATE_PAUSED']);
  expect((await refused).error?.message).toContain('TASK_STATE_PAUSED');
  expect(writes.answers.filter((a) => a.includes('PAUSED'))).toHaveLength(3);
  await moved;
});
