/**
 * The reference peer's store (`peer --store DIR`, src/peer/peer-store.ts): a torn last line is
 * dropped and said, anything else unreadable is an error naming file and line, the directory is
 * locked against a second peer (a stale lock is taken over), and a peer started again on its store
 * carries on: a pause with its token, a consumed token refused, the virtual clock and deadlines.
 */
import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PEER_STORE_FILE, PEER_STORE_LOCK, PeerStore } from '../../src/peer/peer-store.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { Task } from '../../src/protocol/types.js';
import { PeerClient } from './peer-client.js';

let dir = '';
const peers: RunningPeer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-store-unit-'));
});
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
  await rm(dir, { recursive: true, force: true });
});

async function peerOn(store: string, warn: (line: string) => void = () => undefined): Promise<PeerClient> {
  const peer = await startPeer({ deterministic: true, storeDir: store, warn });
  peers.push(peer);
  return new PeerClient(peer.url);
}

async function stopAll(): Promise<void> {
  for (const peer of peers.splice(0)) await peer.close();
}

/** A store holding one task paused with interrupt_immediate; returns its id and token. */
async function pausedStore(store: string): Promise<{ taskId: string; token: string }> {
  const client = await peerOn(store);
  const task = await client.start('work:2');
  const paused = await client.result<{ pause: { resumeToken: string } }>('PauseTask', {
    taskId: task.id,
    mode: 'interrupt_immediate',
  });
  await stopAll();
  return { taskId: task.id, token: paused.pause.resumeToken };
}

describe('the store file', () => {
  it('drops a torn last line, says so, and cuts it off before appending', async () => {
    const store = join(dir, 's');
    const { taskId, token } = await pausedStore(store);
    const file = join(store, PEER_STORE_FILE);
    await appendFile(file, '{"kind":"task","at":"2026-01-01T00:00:');
    const said: string[] = [];
    const client = await peerOn(store, (line) => said.push(line));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`${file} line`);
    expect(said[0]).toContain('torn last line');
    expect((await client.getTask(taskId)).status.pause?.resumeToken).toBe(token);
    await stopAll();
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('refuses a corrupt line in the middle naming the file and the line, and releases the lock', async () => {
    const store = join(dir, 's');
    await pausedStore(store);
    const file = join(store, PEER_STORE_FILE);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = '{"kind":"task","at":"not a time"';
    await writeFile(file, lines.join('\n'));
    await expect(startPeer({ deterministic: true, storeDir: store })).rejects.toThrow(
      `peer store ${file} line 3: not JSON`,
    );
    lines[2] = '{"kind":"checkpoint"}';
    await writeFile(file, lines.join('\n'));
    await expect(startPeer({ deterministic: true, storeDir: store })).rejects.toThrow(
      `peer store ${file} line 3: kind: expected "task", "transition" or "clock"`,
    );
    await expect(stat(join(store, PEER_STORE_LOCK))).rejects.toThrow(/ENOENT/);
  });

  it('creates the store file with mode 0600', async () => {
    const store = join(dir, 's');
    await pausedStore(store);
    expect((await stat(join(store, PEER_STORE_FILE))).mode & 0o777).toBe(0o600);
  });
});

describe('the lock', () => {
  it('refuses a second store open on the same directory while the first holds it', async () => {
    const store = join(dir, 's');
    const first = PeerStore.open(store);
    expect(() => PeerStore.open(store)).toThrow(`in use by process ${process.pid}`);
    await first.close();
    const again = PeerStore.open(store);
    await again.close();
  });

  it('takes over a lock whose process no longer runs, and one holding no pid', async () => {
    const store = join(dir, 's');
    await PeerStore.open(store).close();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    for (const content of [`${gone}\n`, '']) {
      await writeFile(join(store, PEER_STORE_LOCK), content);
      const taken = PeerStore.open(store);
      expect((await readFile(join(store, PEER_STORE_LOCK), 'utf8')).trim()).toBe(String(process.pid));
      await taken.close();
    }
  });
});

describe('a peer started again on its store', () => {
  it('resumes the pause with its token, refuses it once consumed, and keeps the clock', async () => {
    const store = join(dir, 's');
    const first = await peerOn(store);
    const task = await first.start('work:2');
    await first.advance(1500);
    const before = await first.control<{ now: string }>('GetClock');
    const paused = await first.result<{ pause: { resumeToken: string } }>('PauseTask', {
      taskId: task.id,
      mode: 'interrupt_immediate',
    });
    await stopAll();

    const second = await peerOn(store);
    expect(await second.control<{ now: string }>('GetClock')).toEqual(before);
    const token = paused.pause.resumeToken;
    await second.result('ResumeTask', { taskId: task.id, resumeToken: token });
    // Paused again: the consumed token is refused with -32011 after another restart too.
    await second.result('PauseTask', { taskId: task.id, mode: 'interrupt_immediate' });
    await stopAll();

    const third = await peerOn(store);
    expect((await third.call('ResumeTask', { taskId: task.id, resumeToken: token })).error?.code).toBe(-32011);
    const next = (await third.getTask(task.id)).status.pause?.resumeToken;
    expect(next).not.toBe(token);
    await third.result('ResumeTask', { taskId: task.id, resumeToken: next });
    await third.advance(2000);
    const done = await third.getTask(task.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts?.map((a) => a.artifactId)).toEqual(['artifact-1-1', 'artifact-1-2']);
  });

  it('issues no id twice after a restart, keeps finished tasks, and interrupted ones take their message', async () => {
    const store = join(dir, 's');
    const first = await peerOn(store);
    const asking = await first.start('input');
    const finished = await first.start('work:0');
    await stopAll();
    const second = await peerOn(store);
    expect((await second.getTask(asking.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await second.getTask(finished.id)).status.state).toBe('TASK_STATE_COMPLETED');
    const later: Task = await second.start('work:1');
    expect([asking.id, finished.id]).not.toContain(later.id);
    // The interrupted task still takes its follow-up message, and its script goes on.
    await second.result('SendMessage', {
      message: { messageId: 'm-follow-up', role: 'ROLE_USER', taskId: asking.id, parts: [{ text: 'here it is' }] },
      configuration: { returnImmediately: true },
    });
    expect((await second.getTask(asking.id)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('arms a pause timeout again at its own instant', async () => {
    const store = join(dir, 's');
    const first = await peerOn(store);
    const task = await first.start('await:ci.done:1:fail');
    expect((await first.getTask(task.id)).status.state).toBe('TASK_STATE_PAUSED');
    await first.advance(30_000);
    await stopAll();
    const second = await peerOn(store);
    await second.advance(29_999);
    expect((await second.getTask(task.id)).status.state).toBe('TASK_STATE_PAUSED');
    await second.advance(1);
    expect((await second.getTask(task.id)).status.state).toBe('TASK_STATE_FAILED');
  });

  it('on the real clock, fails at once a pause whose timeout passed while the peer was down', async () => {
    const store = join(dir, 's');
    const t0 = Date.parse('2026-03-01T00:00:00Z');
    // Real timers on a clock that stands still: the step never ends, nothing fires by itself.
    const first = await startPeer({ storeDir: store, clock: new ManualClock(t0) });
    peers.push(first);
    const client = new PeerClient(first.url);
    const task = await client.start('work:1');
    await client.result('AwaitTaskResumption', {
      taskId: task.id,
      conditions: { timeout: { durationMinutes: 60, onTimeout: 'fail' } },
    });
    await stopAll();
    const second = await startPeer({ storeDir: store, clock: new ManualClock(t0 + 2 * 3_600_000) });
    peers.push(second);
    const again = new PeerClient(second.url);
    let state = (await again.getTask(task.id)).status.state;
    for (let i = 0; i < 100 && state === 'TASK_STATE_PAUSED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      state = (await again.getTask(task.id)).status.state;
    }
    expect(state).toBe('TASK_STATE_FAILED');
  });
});
