/**
 * A full disk under `a2a-replay record --key` (docs/design.md §5, "A full disk"), through the real
 * recorder process in front of the deterministic reference peer (in the test's process), its
 * transitions log (on another disk) as ground truth; what `verify` and `lost` conclude afterwards
 * is read with the library calls those commands make (test/helpers/verdicts.ts), and one
 * `lost` process shows the command prints it. The recording and its receipt log live on a 256 KiB
 * tmpfs that the test fills with a file of its own and empties again; mounting one needs root, so
 * the test skips, saying why, where it cannot. Under each `--fsync` policy, while the disk is full:
 * every PauseTask and ResumeTask answer a client gets either has its receipt in the log already, or
 * is a 503 naming the full disk (0 acknowledgements without the receipt); once the disk has room
 * again the recorder writes what it kept back, answers the next calls, and closes the log with its
 * checkpoint; every move the peer made into or out of PAUSED then has its receipt.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { restRequestOf } from '../../src/protocol/rest-binding.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { stallMessage, stallRecordPath } from '../../src/receipts/stall-record.js';
import { startPeer } from '../../src/public/peer.js';
import { runCli } from '../helpers/cli.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { GrpcTestClient } from '../helpers/grpc-test-client.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
let mnt = '';
let keyFile = '';
/** Why the tmpfs could not be mounted; empty once it is. */
let unmountable = '';

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'record-full-disk-')));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'disk' }).keyFile()), { mode: 0o600 });
  mnt = join(dir, 'disk');
  await mkdir(mnt);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (error) {
    unmountable = `a 256 KiB tmpfs cannot be mounted here (needs root): ${(error as Error).message.split('\n')[0]}`;
  }
});
afterAll(async () => {
  if (unmountable === '') execFileSync('umount', [mnt]);
  await rm(dir, { recursive: true, force: true });
});

/** Fills the filesystem of `path` to its last byte with that file; returns the file to delete. */
function fill(path: string): string {
  const fd = openSync(path, 'w');
  try {
    for (const size of [65_536, 4096, 256, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/** One JSON-RPC call: its HTTP status and body. */
async function rpc(url: string, method: string, params: unknown): Promise<{ status: number; body: RpcBody }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: response.status, body: (await response.json()) as RpcBody };
}
interface RpcBody {
  result?: { task?: { id: string }; pause?: { resumeToken: string } };
  error?: { code: number; message: string };
}

/** The receipts of the log as written now, `type:taskId` each (a torn last line skipped). */
async function receipts(log: string): Promise<string[]> {
  const out: string[] = [];
  for (const line of (await readFile(log, 'utf8')).split('\n')) {
    try {
      const parsed = JSON.parse(line) as { type: string; taskId?: string };
      if (parsed.taskId !== undefined) out.push(`${parsed.type}:${parsed.taskId}`);
    } catch {
      // the torn tail a full disk left, written again once it has room
    }
  }
  return out;
}

/** The peer's moves into and out of PAUSED, `SuspensionReceipt:taskId` / `ResumptionReceipt:taskId`. */
async function peerMoves(transitions: string): Promise<string[]> {
  const moves: string[] = [];
  for (const line of (await readFile(transitions, 'utf8')).split('\n')) {
    if (line === '') continue;
    const t = JSON.parse(line) as { event: string; taskId: string; from: string | null; to: string };
    if (t.event !== 'transition') continue;
    if (t.to === 'TASK_STATE_PAUSED') moves.push(`SuspensionReceipt:${t.taskId}`);
    else if (t.from === 'TASK_STATE_PAUSED') moves.push(`ResumptionReceipt:${t.taskId}`);
  }
  return moves.sort();
}

const TASKS = 12;

describe('a full disk under record --key', () => {
  for (const fsync of ['always', 'batch', 'never'] as const) {
    const name =
      `acknowledges no JSON-RPC or gRPC pause or resume without its receipt, recovers once there is room ` +
      `(--fsync ${fsync})`;
    it(name, async (ctx) => {
      if (unmountable !== '') ctx.skip(unmountable);
      const transitions = join(dir, `${fsync}.transitions.jsonl`);
      const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
      const out = join(mnt, `${fsync}.jsonl`);
      const log = join(mnt, `${fsync}.receipts.jsonl`);
      let recorder: CliProcess | undefined;
      let filler: string | undefined;
      let grpc: GrpcTestClient | undefined;
      try {
        recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', keyFile, '--fsync', fsync]);
        const url = recorder.url;
        const tasks: string[] = [];
        for (let i = 0; i < TASKS + 1; i++) {
          const sent = await rpc(url, 'SendMessage', {
            ...{ message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] } },
            configuration: { returnImmediately: true },
          });
          tasks.push(sent.body.result?.task?.id as string);
        }
        // The first half paused while the disk has room: their resume tokens, for resumes on a full disk.
        const tokens = new Map<string, string>();
        for (const taskId of tasks.slice(0, TASKS / 2)) {
          const paused = await rpc(url, 'PauseTask', { taskId, reason: 'before' });
          expect(paused.status).toBe(200);
          tokens.set(taskId, paused.body.result?.pause?.resumeToken as string);
        }

        filler = fill(join(mnt, 'filler'));
        type Answer = { call: string; taskId: string; status: number; message?: string; receipted: boolean };
        const answers: Answer[] = [];
        grpc = new GrpcTestClient(url);
        const client = grpc;
        /** JSON-RPC, or gRPC (its UNAVAILABLE as 503, its other codes as 500, its message kept). */
        const send = async (binding: 'JSON-RPC' | 'gRPC', method: string, params: object) => {
          if (binding === 'JSON-RPC') {
            const answer = await rpc(url, method, params);
            return { status: answer.status, ...(answer.body.error ? { message: answer.body.error.message } : {}) };
          }
          return client.ok(method, params).then(
            () => ({ status: 200 }),
            (error: Error) => ({ status: / failed: 14 /.test(error.message) ? 503 : 500, message: error.message }),
          );
        };
        let turn = 0;
        const call = async (method: 'PauseTask' | 'ResumeTask', taskId: string, params: object) => {
          const binding = turn++ % 2 === 0 ? 'JSON-RPC' : 'gRPC';
          const answer = await send(binding, method, { taskId, ...params });
          const receipt = `${method === 'PauseTask' ? 'Suspension' : 'Resumption'}Receipt:${taskId}`;
          // What the log holds at the moment the client has its answer.
          const count = (await receipts(log)).filter((r) => r === receipt).length;
          answers.push({ call: `${binding} ${method}`, taskId, ...answer, receipted: count >= 1 });
        };
        for (const taskId of tasks.slice(TASKS / 2, TASKS)) await call('PauseTask', taskId, { reason: 'full' });
        for (const [taskId, resumeToken] of tokens) await call('ResumeTask', taskId, { resumeToken });
        // Both bindings were refused while the disk was full.
        for (const binding of ['JSON-RPC', 'gRPC'])
          expect(answers.filter((a) => a.call.startsWith(binding) && a.status === 503).length).toBeGreaterThan(0);

        const acknowledged = answers.filter((a) => a.status === 200 && a.message === undefined);
        const refused = answers.filter((a) => !acknowledged.includes(a));
        expect(acknowledged.filter((a) => !a.receipted)).toEqual([]);
        // The tails of the files' last pages take a few; the rest are refused, naming the cause.
        expect(refused.length).toBeGreaterThan(TASKS / 2);
        for (const r of refused) {
          expect(r.status).toBe(503);
          expect(r.message).toMatch(/could not make the receipt of this call durable \(the disk is full\)/);
        }
        expect(recorder.stderr()).toMatch(/ENOSPC/);

        // Room again: the next pause is answered with its receipt, and what was kept back is written.
        await rm(filler);
        filler = undefined;
        const last = tasks[TASKS] as string;
        const after = await rpc(url, 'PauseTask', { taskId: last, reason: 'after' });
        expect(after.status).toBe(200);
        expect(await receipts(log)).toContain(`SuspensionReceipt:${last}`);
        expect(await stopProcess(recorder)).toBe(0);
        recorder = undefined;

        // Every move the peer made into or out of PAUSED has its receipt, and the log closed whole.
        expect((await receipts(log)).sort()).toEqual(await peerMoves(transitions));
        const verified = await verifyVerdict([log], keyFile);
        expect(verified.code, verified.lines.join('\n')).toBe(0);
        expect(verified.json).toMatchObject({ ok: true, closed: true });
      } finally {
        grpc?.close();
        if (filler !== undefined) await rm(filler, { force: true });
        if (recorder) await stopProcess(recorder);
        await peer.close();
        await rm(out, { force: true });
        await rm(log, { force: true });
        await rm(stallRecordPath(log), { force: true });
        await rm(stallRecordPath(log), { force: true });
      }
    });
  }

  it('refuses a gRPC pause with UNAVAILABLE, an HTTP+JSON one with a 503 error, naming the full disk', async (ctx) => {
    if (unmountable !== '') ctx.skip(unmountable);
    const peer = await startPeer({ deterministic: true });
    const out = join(mnt, 'bindings.jsonl');
    const log = join(mnt, 'bindings.receipts.jsonl');
    let recorder: CliProcess | undefined;
    let filler: string | undefined;
    let grpc: GrpcTestClient | undefined;
    try {
      recorder = await startRecordProcess([
        '--upstream',
        peer.url,
        '--out',
        out,
        '--key',
        keyFile,
        '--fsync',
        'always',
      ]);
      const url = recorder.url;
      const tasks: string[] = [];
      for (let i = 0; i < TASKS; i++) {
        const sent = await rpc(url, 'SendMessage', {
          ...{ message: { messageId: `b-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] } },
          configuration: { returnImmediately: true },
        });
        tasks.push(sent.body.result?.task?.id as string);
      }
      grpc = new GrpcTestClient(url);
      const client = grpc;
      filler = fill(join(mnt, 'filler'));
      /** Pauses over `binding`: null when acknowledged (its receipt is in the log then), else what the client got. */
      const pause = async (binding: 'GRPC' | 'HTTP+JSON', taskId: string): Promise<string | null> => {
        let refusal: string | null = null;
        if (binding === 'GRPC') {
          refusal = await client.ok('PauseTask', { taskId, reason: 'full' }).then(
            () => null,
            (error: Error) => error.message,
          );
        } else {
          const request = restRequestOf('PauseTask', { taskId, reason: 'full' });
          const res = await fetch(new URL(`/rest${request?.path ?? ''}`, url), {
            method: request?.verb ?? 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: JSON.stringify(request?.body ?? {}),
          });
          const text = await res.text();
          refusal = res.status === 200 ? null : `${res.status} ${text}`;
        }
        if (refusal === null) expect(await receipts(log)).toContain(`SuspensionReceipt:${taskId}`);
        return refusal;
      };
      // The tails of the files' last pages take a few pauses; then each binding is refused.
      const refusals: Record<string, string | null> = { GRPC: null, 'HTTP+JSON': null };
      for (const [i, taskId] of tasks.entries()) {
        const binding =
          refusals.GRPC === null && (i % 2 === 0 || refusals['HTTP+JSON'] !== null) ? 'GRPC' : 'HTTP+JSON';
        refusals[binding] ??= await pause(binding, taskId);
        if (refusals.GRPC !== null && refusals['HTTP+JSON'] !== null) break;
      }
      expect(refusals.GRPC).toMatch(
        /^PauseTask failed: 14 .*could not make the receipt of this call durable \(the disk is full\)/,
      );
      expect(JSON.parse((refusals['HTTP+JSON'] ?? '').replace(/^503 /, ''))).toMatchObject({
        error: { code: 503, status: 'INTERNAL', message: expect.stringContaining('(the disk is full)') as unknown },
      });
      expect(refusals['HTTP+JSON']).toMatch(/^503 /);
    } finally {
      grpc?.close();
      if (filler !== undefined) await rm(filler, { force: true });
      if (recorder) await stopProcess(recorder);
      await peer.close();
      await rm(out, { force: true });
      await rm(log, { force: true });
      await rm(stallRecordPath(log), { force: true });
    }
  });

  it('stops with exit 3 and says the log has no closing checkpoint when the disk never has room again', async (ctx) => {
    if (unmountable !== '') ctx.skip(unmountable);
    const peer = await startPeer({ deterministic: true });
    const out = join(mnt, 'stays-full.jsonl');
    const log = join(mnt, 'stays-full.receipts.jsonl');
    let recorder: CliProcess | undefined;
    let filler: string | undefined;
    try {
      recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', keyFile, '--fsync', 'batch']);
      const url = recorder.url;
      const tasks: string[] = [];
      for (let i = 0; i < TASKS; i++) {
        const sent = await rpc(url, 'SendMessage', {
          ...{ message: { messageId: `f-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] } },
          configuration: { returnImmediately: true },
        });
        tasks.push(sent.body.result?.task?.id as string);
      }
      filler = fill(join(mnt, 'filler'));
      let refused = 0;
      for (const taskId of tasks)
        if ((await rpc(url, 'PauseTask', { taskId, reason: 'full' })).status === 503) refused++;
      expect(refused).toBeGreaterThan(0);
      const stopping = recorder;
      recorder = undefined;
      expect(await stopProcess(stopping)).toBe(3);
      expect(stopping.stderr()).toMatch(/stays-full\.receipts\.jsonl ends without its closing checkpoint: .*ENOSPC/);
      await rm(filler);
      filler = undefined;
      const verified = await verifyVerdict([log], keyFile);
      expect(verified.code).not.toBe(0);
    } finally {
      if (filler !== undefined) await rm(filler, { force: true });
      if (recorder) await stopProcess(recorder);
      await peer.close();
      await rm(out, { force: true });
      await rm(log, { force: true });
      await rm(stallRecordPath(log), { force: true });
    }
  });

  for (const fsync of ['always', 'batch', 'never'] as const) {
    const name = `says which moves have no receipt when the disk stays full until the recorder stops (${fsync})`;
    it(name, async (ctx) => {
      if (unmountable !== '') ctx.skip(unmountable);
      const transitions = join(dir, `stopped-${fsync}.transitions.jsonl`);
      const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
      const out = join(mnt, `stopped-${fsync}.jsonl`);
      const log = join(mnt, `stopped-${fsync}.receipts.jsonl`);
      let recorder: CliProcess | undefined;
      let filler: string | undefined;
      try {
        recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', keyFile, '--fsync', fsync]);
        const url = recorder.url;
        const tasks: string[] = [];
        for (let i = 0; i < TASKS; i++) {
          const sent = await rpc(url, 'SendMessage', {
            ...{ message: { messageId: `s-${i}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] } },
            configuration: { returnImmediately: true },
          });
          tasks.push(sent.body.result?.task?.id as string);
        }
        const tokens = new Map<string, string>();
        for (const taskId of tasks.slice(0, TASKS / 2)) {
          const paused = await rpc(url, 'PauseTask', { taskId, reason: 'before' });
          tokens.set(taskId, paused.body.result?.pause?.resumeToken as string);
        }
        filler = fill(join(mnt, 'filler'));
        let refused = 0;
        for (const taskId of tasks.slice(TASKS / 2))
          if ((await rpc(url, 'PauseTask', { taskId, reason: 'full' })).status === 503) refused++;
        for (const [taskId, resumeToken] of tokens)
          if ((await rpc(url, 'ResumeTask', { taskId, resumeToken })).status === 503) refused++;
        expect(refused).toBeGreaterThan(0);
        // The disk is still full when the recorder stops: the lines it kept back are never written.
        const stopping = recorder;
        recorder = undefined;
        expect(await stopProcess(stopping)).toBe(3);

        // Ground truth: the peer's moves the log has no receipt of.
        const inLog = await receipts(log);
        const missing = (await peerMoves(transitions)).filter((m) => !inLog.includes(m));
        expect(missing.length).toBeGreaterThan(0);
        // The documented post-crash check fails, naming every one of them.
        const verified = await verifyVerdict([log], keyFile, { allowOpen: true, allowTornTail: true });
        expect(verified.code, verified.lines.join('\n')).toBe(1);
        const result = verified.json as unknown as {
          ok: boolean;
          firstError: { reason: string; message: string };
          stall: { receipts: Array<{ type: string; taskId: string }>; unlisted: number; signature: string };
        };
        expect(result).toMatchObject({ ok: false, firstError: { reason: 'unreceipted' } });
        expect(result.stall).toMatchObject({ unlisted: 0, signature: 'checked' });
        const listed = result.stall.receipts.map((r) => `${r.type}:${r.taskId}`);
        expect(listed.sort()).toEqual(missing.sort());
        for (const move of missing) expect(result.firstError.message).toContain(move.split(':')[1]);
        // lost says so too, with the key and without, and exits 1.
        for (const keys of [keyFile, undefined]) {
          const lost = await lostVerdict([log], { allowTornTail: true, keys });
          expect(lost.code).toBe(1);
          const said = stallMessage(lost.found!.unreceipted!);
          expect(said).toMatch(/UNRECEIPTED: the recorder could not write/);
          for (const move of missing) expect(said).toContain(move.split(':')[1]);
        }
        // The command prints that line and exits 1 (once: the policies differ in the recorder, not in lost).
        if (fsync === 'always') {
          const lost = await runCli(['lost', log, '--allow-torn-tail', '--key', keyFile]);
          expect(lost.code, lost.stderr).toBe(1);
          expect(lost.stdout).toMatch(/UNRECEIPTED: the recorder could not write/);
          for (const move of missing) expect(lost.stdout).toContain(move.split(':')[1]);
        }
      } finally {
        if (filler !== undefined) await rm(filler, { force: true });
        if (recorder) await stopProcess(recorder);
        await peer.close();
        await rm(out, { force: true });
        await rm(log, { force: true });
        await rm(stallRecordPath(log), { force: true });
      }
    });
  }
});
