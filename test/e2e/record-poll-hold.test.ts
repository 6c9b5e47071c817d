/**
 * A poll through `record --key` is never held for a stream that cannot tell (docs/design.md §5,
 * "Durable before acknowledged"; §14.3). The recorder (a real process) in front of the
 * deterministic reference peer: a task the agent parks, resumed directly at the peer, then a
 * SubscribeToTask through the recorder (its first event the task as it stands, past the pause)
 * and a GetTask through it. The stream was opened after the pause ended: it will never deliver
 * the pause nor its end, so the GetTask must not wait for it to.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
let keyFile = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-poll-hold-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'poll' }).keyFile()), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What `answer` settles to, or `held` when it has not within `ms` (a hang, never a timing). */
async function unlessHeld<T>(answer: Promise<T>, ms: number): Promise<T | 'held'> {
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<'held'>((resolve) => (timer = setTimeout(() => resolve('held'), ms)));
  try {
    return await Promise.race([answer, held]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a poll through the recorder while a stream is open', () => {
  it('answers a GetTask whose task a stream opened after the resume carries', async () => {
    const transitions = join(dir, 'peer.transitions.jsonl');
    const peer: RunningPeer = await startPeer({ deterministic: true, transitionsFile: transitions });
    const out = join(dir, 'poll.jsonl');
    let recorder: CliProcess | undefined;
    const clients: A2aTestClient[] = [];
    try {
      recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', keyFile]);
      const through = new A2aTestClient(recorder.url, 'alice');
      const direct = new A2aTestClient(peer.url, 'carol');
      clients.push(through, direct);
      const { task } = await through.ok<{ task: { id: string } }>('SendMessage', {
        message: { role: 'ROLE_USER', messageId: 'm0', parts: [{ text: 'await:go:1:fail work:500' }] },
        configuration: { returnImmediately: true },
      });
      const shown = await direct.ok<{ status: { pause?: { resumeToken?: string } } }>('GetTask', { id: task.id });
      const resumeToken = shown.status.pause?.resumeToken;
      expect(resumeToken).toBeDefined();
      await direct.ok('ResumeTask', { taskId: task.id, resumeToken });
      const stream = through.stream('SubscribeToTask', { id: task.id });
      await stream.next(() => true);
      const poll = through.ok<{ status: { state: string } }>('GetTask', { id: task.id });
      const polled = await unlessHeld(poll, 10_000);
      // The task ends either way, so a held poll is let go and the stream ends before the assertions.
      await direct.ok('CancelTask', { id: task.id });
      await stream.done.catch(() => undefined);
      await poll.catch(() => undefined);
      expect(polled).not.toBe('held');
      expect(polled).toMatchObject({ status: { state: 'TASK_STATE_WORKING' } });
    } finally {
      for (const c of clients) c.close();
      if (recorder) await stopProcess(recorder);
      await peer.close();
    }
  });
});
