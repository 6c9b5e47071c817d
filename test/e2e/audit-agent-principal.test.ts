/**
 * Audit shows who asked for an agent's pause: `AwaitTaskResumption` sent by a client principal is
 * recorded with that principal, and `audit` flags it unless the principal is one of the agent's
 * own (`--agent-principal`). A pause the agent's script takes by itself is never flagged. The peer
 * and the keyed recorder (`startPeer`, `startRecorder`) run in this process; the rows are what
 * `audit --json` concludes (`auditLogSet`), and the built CLI prints the table and its note.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { bearer } from '../helpers/jwt.js';
import { auditVerdict } from '../helpers/verdicts.js';

let dir = '';
const open: (RunningPeer | Recorder)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-principal-'));
});
afterEach(async () => {
  for (const server of open.splice(0).reverse()) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function rpc(url: string, method: string, params: unknown, sub: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

interface Row {
  taskId: string;
  initiatedBy: string;
  principal: string | null;
  via: string;
  flags: string[];
}

it('flags an AwaitTaskResumption requested by a principal other than the agent, never a self-park', async () => {
  const key = join(dir, 'key.json');
  const receiptKey = generateReceiptKey({ kid: 'audit' });
  await writeFile(key, canonicalJson(receiptKey.keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  open.push(peer);
  const out = join(dir, 'session.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
  open.push(recorder);

  const send = async (text: string, sub: string): Promise<string> => {
    const r = (await rpc(
      recorder.url,
      'SendMessage',
      {
        message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
        configuration: { returnImmediately: true },
      },
      sub,
    )) as { result: { task: { id: string } } };
    return r.result.task.id;
  };
  const requested = await send('work:3', 'alice');
  const selfParked = await send('work:1 await:review work:1', 'alice');
  await rpc(`${recorder.url}/control`, 'AdvanceClock', { ms: 1000 }, 'ops');
  const awaited = await rpc(
    recorder.url,
    'AwaitTaskResumption',
    { taskId: requested, reason: 'ci', conditions: { onEvent: 'ci.done' } },
    'mallory',
  );
  expect(awaited).toHaveProperty('result');
  await rpc(recorder.url, 'GetTask', { id: selfParked }, 'alice');
  open.pop();
  expect((await recorder.close()).complete).toBe(true);

  const log = join(dir, 'session.receipts.jsonl');
  const rows = (agentPrincipals?: string[]): Promise<Row[]> =>
    auditVerdict([log], receiptKey, { agentPrincipals }).then((r) => r.rows as unknown as Row[]);

  const unconfigured = await rows();
  const byTask = new Map(unconfigured.map((r) => [r.taskId, r]));
  expect(byTask.get(requested)).toMatchObject({
    initiatedBy: 'PAUSE_INITIATOR_AGENT',
    via: 'AwaitTaskResumption',
    principal: 'jwt:sub=mallory',
    flags: ['agent-pause-requested-by-other-principal'],
  });
  expect(byTask.get(selfParked)).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_AGENT', flags: [] });

  const asAgent = await rows(['jwt:sub=mallory']);
  expect(asAgent.find((r) => r.taskId === requested)?.flags).toEqual([]);
  const otherAgent = await rows(['jwt:sub=agent-7']);
  expect(otherAgent.find((r) => r.taskId === requested)?.flags).toEqual(['agent-pause-requested-by-other-principal']);

  const table = await runCli(['audit', log, '--key', key]);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/! agent-pause-requested-by-other-principal/);
  expect(table.stderr).toMatch(/1 agent pause requested by another principal \(no --agent-principal given\)/);
});
