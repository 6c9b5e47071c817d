/**
 * Ids the peer mints, wherever they travel (docs/design.md §8 "Mapping"): a stock `@a2a-js/sdk`
 * agent mints a tool-call id per call and sends it in the DataPart of its confirmation; the
 * client's approval carries it back in a DataPart of its own. Recorded through `startRecorder`
 * with a key and `principalFrom: 'jwt-sub'` (`record --key --principal-from jwt-sub`), the session
 * replays as `run --peer` replays it (`replayRecordings`, test/helpers/run-report.ts) against the
 * same agent to a PASS — the approval names the call the live agent proposed, not the recorded one — and against
 * the same agent approving its own calls (the gate gone) to exit 1, the drift naming the
 * interruption that no longer comes. In A2A v1.0 (SDK 1.3.0) and v0.3 (SDK 0.3.14).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startRecorder } from '../../src/public/record.js';
import { bearer } from '../helpers/jwt.js';
import { replayReport } from '../helpers/run-report.js';
import { RPC_PATH, type SdkApprovalPeer, startSdkApprovalPeer } from '../fixtures/sdk-approval-peer.js';

let dir = '';
const peers: SdkApprovalPeer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'minted-ids-'));
});
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close();
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
type Dialect = '0.3' | '1.0';

async function post(url: string, dialect: Dialect, method: string, params: unknown, sub: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: bearer(sub),
      ...(dialect === '1.0' ? { 'a2a-version': '1.0' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.text();
}

/** The `result`s of an SSE answer's `data:` lines. */
function events(text: string): Json[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => (JSON.parse(l.slice(5)) as { result: Json }).result);
}

/** The tool call the agent proposed in the stream, and the task it waits on. */
function proposal(dialect: Dialect, stream: Json[]): { taskId: string; contextId: string; callId: string } {
  const found = JSON.stringify(stream).match(/"callId":"([0-9a-f-]{36})"/);
  const update = (dialect === '1.0' ? stream.map((e) => e.statusUpdate).find(Boolean) : stream[1]) as Json;
  expect(found, JSON.stringify(stream)).not.toBeNull();
  return { taskId: update.taskId as string, contextId: update.contextId as string, callId: found![1] as string };
}

/** One approval session from the client's side: ask to deploy, approve the call the agent proposed. */
async function approvalSession(url: string, dialect: Dialect): Promise<{ asked: Json[]; answered: Json }> {
  const ask =
    dialect === '1.0'
      ? { message: { messageId: 'm-ask', role: 'ROLE_USER', parts: [{ text: 'deploy' }] } }
      : { message: { kind: 'message', messageId: 'm-ask', role: 'user', parts: [{ kind: 'text', text: 'deploy' }] } };
  const asked = events(
    await post(url, dialect, dialect === '1.0' ? 'SendStreamingMessage' : 'message/stream', ask, 'bob'),
  );
  const { taskId, contextId, callId } = proposal(dialect, asked);
  const approval = { callId, outcome: 'approved' };
  const answer =
    dialect === '1.0'
      ? { message: { messageId: 'm-ok', role: 'ROLE_USER', taskId, contextId, parts: [{ data: approval }] } }
      : {
          message: {
            kind: 'message',
            messageId: 'm-ok',
            role: 'user',
            taskId,
            contextId,
            parts: [{ kind: 'data', data: approval }],
          },
        };
  const text = await post(url, dialect, dialect === '1.0' ? 'SendMessage' : 'message/send', answer, 'alice');
  return { asked, answered: (JSON.parse(text) as { result: Json }).result };
}

/** Records one approval session with the agent of `dialect` through the recorder, with a key. */
async function record(dialect: Dialect): Promise<{ recording: string; key: string; port: number }> {
  const agent = await startSdkApprovalPeer({ dialect });
  peers.push(agent);
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'minted' }).keyFile()), { mode: 0o600 });
  const recording = join(dir, 'approval.jsonl');
  const recorder = await startRecorder({
    upstream: agent.url,
    out: recording,
    key,
    principalFrom: 'jwt-sub',
    warn: () => undefined,
  });
  let session: { asked: Json[]; answered: Json };
  try {
    session = await approvalSession(`${recorder.url}${RPC_PATH}`, dialect);
  } finally {
    await recorder.close();
  }
  const { asked, answered } = session;
  const state = dialect === '1.0' ? (answered.task as Json).status : answered.status;
  expect(state).toMatchObject({ state: dialect === '1.0' ? 'TASK_STATE_COMPLETED' : 'completed' });
  expect(asked.length).toBeGreaterThanOrEqual(2);
  expect(agent.ran).toEqual(agent.calls);
  return { recording, key, port: Number(new URL(agent.url).port) };
}

describe.each<Dialect>(['1.0', '0.3'])('a tool-call id the agent mints, echoed in the approval (A2A %s)', (dialect) => {
  it('replays against the same agent to a PASS: the approval carries the live call id', async () => {
    const { recording, key } = await record(dialect);
    const live = await startSdkApprovalPeer({ dialect });
    peers.push(live);
    const r = await replayReport([recording], { peer: live.url, key });
    expect(r.stdout, r.stdout).toMatch(/^PASS /m);
    expect(r.code).toBe(0);
    // The live agent minted its own call id, and the replayed approval named that one.
    expect(live.calls).toHaveLength(1);
    expect(live.ran).toEqual(live.calls);
    expect(live.refused).toEqual([]);
    if (dialect === '1.0') expect(r.stdout).toMatch(/\(\d+ exchanges?, 2 receipts[,)]/);
  });

  it('fails against the same agent approving its own calls, naming the missing interruption', async () => {
    const { recording, key } = await record(dialect);
    const live = await startSdkApprovalPeer({ dialect, selfApprove: true });
    peers.push(live);
    const r = await replayReport([recording], { peer: live.url, key });
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(/^DRIFT /m);
    // The stream no longer stops at input-required, and (v1.0, whose receipts this branch's
    // observer reads) the interruption and its continuation are gone from the derived log.
    const missing = dialect === '1.0' ? 'statusUpdate TASK_STATE_INPUT_REQUIRED' : 'task input-required';
    expect(r.stdout).toContain(`missing: event ${missing} — the live stream ended (end) before it`);
    if (dialect === '1.0') {
      expect(r.stdout).toMatch(/receipts\[0\] \(\S+ interruption 1, line 2\): expected .*, actual \(absent\)/);
      expect(r.stdout).toMatch(
        /receipts\[1\] \(\S+ interruption 1 continuation 1, line 3\): expected .*, actual \(absent\)/,
      );
    }
    expect(live.calls).toHaveLength(1);
    expect(live.refused).toEqual([]);
  });
});
