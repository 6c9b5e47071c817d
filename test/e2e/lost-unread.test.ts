/**
 * Where the record cannot follow the peer, no clean verdict (docs/design.md §14.2): a peer over a
 * real socket, recorded by the real `record --key` process, answers a PAUSED task with a pause
 * block the observer cannot read, and carries out a pause call whose params it could not read.
 * `lost` names each (line, seq, why) under UNREAD and exits 1, as `verify --recording` fails and
 * the report says NOT A CLEAN READING; the recorder says each at once on stderr and in its stop
 * line; the library's `lostPauses` gives the same gaps. A call the
 * peer refuses is read (its error says it did nothing): that recording stays clean — recorded by
 * `startRecorder` in this process, its verdicts the library calls `lost` and `verify` make.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { lostPauses } from '../../src/logs/log-set.js';
import { type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { recordingSection } from '../../src/report/build-report.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { lostVerdict, verifyVerdict, expectNoLostInRecording } from '../helpers/verdicts.js';

let dir = '';
const processes: CliProcess[] = [];
const servers: Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lost-unread-'));
});
afterEach(async () => {
  for (const p of processes.splice(0)) await stopProcess(p, 'SIGKILL');
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await rm(dir, { recursive: true, force: true });
});

const PAUSE = {
  initiatedBy: 'PAUSE_INITIATOR_CLIENT',
  resumeToken: 'suspend-1',
  pausedAt: '2026-04-30T12:34:56.789Z',
  resumable: true,
};

/**
 * A v1.0 JSON-RPC peer: GetTask shows `task-1` PAUSED with a pause whose `pausedAt` is no
 * timestamp; PauseTask pauses any task, or, when `refuse` is set, refuses a mode it does not know
 * with -32602 as the RFC's peer does.
 */
async function peer(refuse: boolean): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // The recorder reads the card first: this peer has none.
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: number;
        method: string;
        params: { id?: string; taskId?: string; mode?: string };
      };
      const answer = (body: object): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...body }));
      };
      if (call.method === 'GetTask')
        return answer({
          result: {
            id: call.params.id,
            contextId: 'ctx-1',
            status: { state: 'TASK_STATE_PAUSED', pause: { ...PAUSE, pausedAt: 'yesterday' } },
          },
        });
      if (call.method === 'PauseTask' && refuse && call.params.mode === 'whenever')
        return answer({ error: { code: -32602, message: 'mode: unknown pause mode "whenever"' } });
      if (call.method === 'PauseTask')
        return answer({ result: { taskId: call.params.taskId, state: 'TASK_STATE_PAUSED', pause: PAUSE } });
      answer({ error: { code: -32601, message: `no method ${call.method}` } });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function rpc(url: string, method: string, params: object): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  await res.arrayBuffer();
}

/**
 * Records `calls` through `record --key` in front of the peer, as a process or, `inProcess`, through
 * `startRecorder` (its warnings and stop summary as `record` would print them); the recording, its
 * log, the key and what was said.
 */
async function record(
  refuse: boolean,
  calls: [string, object][],
  inProcess = false,
): Promise<{ out: string; log: string; key: ReceiptKey; stderr: string }> {
  const keyFile = join(dir, 'key.json');
  const key = generateReceiptKey({ kid: 'unread' });
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  const out = join(dir, 'session.jsonl');
  const log = join(dir, 'session.receipts.jsonl');
  const upstream = await peer(refuse);
  if (inProcess) {
    const said: string[] = [];
    const recorder = await startRecorder({ upstream, out, key: keyFile, warn: (l) => said.push(`a2a-replay: ${l}`) });
    for (const [method, params] of calls) await rpc(`${recorder.url}/`, method, params);
    const summary = await recorder.close();
    expect(summary.complete).toBe(true);
    if (summary.unread > 0) said.push(`${summary.unread} UNREAD`);
    return { out, log, key, stderr: said.map((l) => `${l}\n`).join('') };
  }
  const recorder = await startRecordProcess(['--upstream', upstream, '--out', out, '--key', keyFile]);
  processes.push(recorder);
  for (const [method, params] of calls) await rpc(`${recorder.url}/`, method, params);
  expect(await stopProcess(recorder)).toBe(0);
  return { out, log, key, stderr: recorder.stderr() };
}

describe('lost on what the observer could not read of the peer', () => {
  it('names a PAUSED answer with a malformed pause and a pause call it could not read, exit 1', async () => {
    const { out, log, key, stderr } = await record(false, [
      ['GetTask', { id: 'task-1' }],
      ['PauseTask', { taskId: 'task-2', mode: 'whenever' }],
    ]);
    // The recorder says each at once, and counts them in its stop line.
    expect(stderr).toContain('a2a-replay: unread (seq 2): malformed-pause: body.result.status.pause.pausedAt:');
    expect(stderr).toMatch(/a2a-replay: unread \(seq 4\): unread-call: the peer answered exchange/);
    expect(stderr).toMatch(/a2a-replay: stopped: 2 exchanges, .*, 2 UNREAD; wrote /);
    const lost = await runCli(['lost', out]);
    expect(lost.code, lost.stderr + lost.stdout).toBe(1);
    expect(lost.stdout).toContain(`no lost pauses seen in ${out} (recording, INCOMPLETE)`);
    expect(lost.stdout).toContain(`UNREAD: the observer could not read what the peer said at 2 entries of ${out}`);
    // Entry 2 (line 3) is GetTask's answer; entry 4 (line 5) PauseTask's.
    expect(lost.stdout).toContain(`${out}:3: seq 2: malformed-pause: body.result.status.pause.pausedAt:`);
    expect(lost.stdout).toMatch(/:5: seq 4: unread-call: the peer answered exchange \S+ with a result/);

    const json = await lostVerdict([out]);
    expect(json.code).toBe(1);
    expect(json.json).toMatchObject({
      read: false,
      unread: [
        { line: 3, seq: 2 },
        { line: 5, seq: 4 },
      ],
    });

    const verified = await verifyVerdict([log], key, { checks: { recording: out } });
    expect(verified.code, verified.stdout).toBe(1);
    expect(verified.stdout).toContain(`${out}: UNREAD: the observer could not read what the peer said at 2 entries`);
    expect(verified.stdout).toContain(`${out}:3: seq 2: malformed-pause:`);

    const library = await lostPauses(out);
    expect(library.gaps?.unread.listed.map((u) => u.seq)).toEqual([2, 4]);
    const section = await recordingSection(out);
    expect(section.verdict).toContain('NOT A CLEAN READING: 2 unread');
    expect(section.notes.some((n) => n.startsWith(`UNREAD: ${out}:3: seq 2: malformed-pause`))).toBe(true);
  });

  it('stays clean when the peer refuses the call whose params it could not read', async () => {
    const { out, log, key, stderr } = await record(true, [['PauseTask', { taskId: 'task-2', mode: 'whenever' }]], true);
    expect(stderr).not.toContain('a2a-replay: unread');
    expect(stderr).not.toContain('UNREAD');
    const lost = await lostVerdict([out]);
    expect(lost.code, JSON.stringify(lost.json)).toBe(0);
    expect(lost.json).toMatchObject({ read: true, lost: [] });
    // What makes `lost` print exactly `no lost pauses in FILE (recording)`.
    expectNoLostInRecording(lost.found);
    expect(JSON.stringify(lost.json)).not.toContain('unread-call');
    const verified = await verifyVerdict([log], key, { checks: { recording: out } });
    expect(verified.code, verified.stdout).toBe(0);
    expect((await lostPauses(out)).gaps?.unread.count).toBe(0);
  });
});
