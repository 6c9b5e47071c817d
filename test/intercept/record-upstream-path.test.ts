/**
 * An upstream URL with a base path (`record --upstream http://HOST:PORT/a2a/`): the reference peer
 * mounted under `/a2a` by a real node:http server in front of it, its transitions log as ground
 * truth. A client's `POST /rest/tasks/ID:pause` goes to `/a2a/rest/tasks/ID:pause`, and the
 * recorder observes it as the binding the path names under the base (HTTP+JSON PauseTask): the
 * pause and its resume, over HTTP+JSON and JSON-RPC, have their receipts. A base path that is part
 * of a binding's own route (`--upstream http://HOST:PORT/rest/tasks`), under which the client's
 * path names no binding while the path the peer gets does, is refused, never forwarded unread.
 * The recorder is `startRecorder` (what `record` runs, `upstream` as `--upstream`) in this process;
 * `lost`'s verdict is the library call the command makes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startRecorder } from '../../src/public/record.js';
import { lostVerdict, expectNoLostInRecording } from '../helpers/verdicts.js';
import { ok } from '../replay/session.js';

type Json = Record<string, unknown>;

let dir = '';
let keyFile = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-upstream-path-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'path' }).keyFile()), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const jsonl = async (file: string): Promise<Json[]> =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);

/** A REST call through `url`: its status and JSON body. */
async function rest(url: string, path: string, body: Json): Promise<{ status: number; body: Json }> {
  const res = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

it('forwards under the base path and receipts the pause and resume the peer mounted there makes', async () => {
  const transitions = join(dir, 'mounted.transitions.jsonl');
  const out = join(dir, 'mounted.jsonl');
  // The peer's own routes under /a2a, as a server that mounts it serves them; anything else is 404.
  const peer = await startPeer({
    deterministic: true,
    transitionsFile: transitions,
    wrapHandler: (handler) => (req, res) => {
      const url = req.url ?? '/';
      if (url !== '/a2a' && !url.startsWith('/a2a/')) {
        res.writeHead(404).end();
        return;
      }
      req.url = url.slice('/a2a'.length) || '/';
      handler(req, res);
    },
  });
  const recorder = await startRecorder({ upstream: `${peer.url}/a2a/`, out, key: keyFile, warn: () => undefined });
  let taskId = '';
  try {
    const started = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    taskId = started.task.id;
    const paused = await rest(recorder.url, `/rest/tasks/${taskId}:pause`, { reason: 'mounted' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const token = (paused.body.pause as { resumeToken: string }).resumeToken;
    await ok(recorder.url, 'ResumeTask', { taskId, resumeToken: token });
    const again = await rest(recorder.url, `/rest/tasks/${taskId}:pause`, { reason: 'again' });
    expect(again.status).toBe(200);
    await ok(recorder.url, 'CancelTask', { id: taskId });
  } finally {
    expect((await recorder.close()).complete).toBe(true);
    await peer.close();
  }
  const moves = (await jsonl(transitions))
    .filter((t) => t.event === 'transition' && (t.to === 'TASK_STATE_PAUSED' || t.from === 'TASK_STATE_PAUSED'))
    .map((t) => (t.to === 'TASK_STATE_PAUSED' ? 'SuspensionReceipt' : 'ResumptionReceipt'));
  expect(moves).toEqual(['SuspensionReceipt', 'ResumptionReceipt', 'SuspensionReceipt', 'ResumptionReceipt']);
  const receipts = (await jsonl(out.replace(/\.jsonl$/, '.receipts.jsonl'))).filter((r) => r.taskId === taskId);
  expect(receipts.map((r) => r.type)).toEqual(moves);
  expect(receipts.map((r) => r.binding)).toEqual(['HTTP+JSON', 'JSONRPC', 'HTTP+JSON', 'JSONRPC']);
  const lost = await lostVerdict([out]);
  expect(lost.code, JSON.stringify(lost.json)).toBe(0);
  expect(lost.json).toMatchObject({ lost: [], complete: true, read: true, understood: true });
  // What makes `lost` print exactly `no lost pauses in FILE (recording)`.
  expectNoLostInRecording(lost.found);
});

const ROUTE_BASE =
  'refuses a target naming a call only under a base path that is part of a route; the peer moves nothing';

it(ROUTE_BASE, async () => {
  const transitions = join(dir, 'route-base.transitions.jsonl');
  const out = join(dir, 'route-base.jsonl');
  const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
  const recorder = await startRecorder({
    upstream: `${peer.url}/rest/tasks`,
    out,
    key: keyFile,
    warn: () => undefined,
  });
  let taskId = '';
  try {
    const started = await ok<{ task: { id: string } }>(peer.url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    taskId = started.task.id;
    // The peer would read it as /rest/tasks/ID:pause; the recording keeps /ID:pause, which names no call.
    const refused = await rest(recorder.url, `/${taskId}:pause`, { reason: 'route base' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      `under the upstream's base path /rest/tasks the peer gets POST /rest/tasks/${taskId}:pause, ` +
        'an HTTP+JSON PauseTask',
    );
  } finally {
    expect((await recorder.close()).complete).toBe(true);
    await peer.close();
  }
  const paused = (await jsonl(transitions)).filter((t) => t.event === 'transition' && t.to === 'TASK_STATE_PAUSED');
  expect(paused).toEqual([]);
  const entries = (await jsonl(out)).slice(1);
  expect(entries.map((e) => e.kind)).toEqual(['request', 'error']);
});
