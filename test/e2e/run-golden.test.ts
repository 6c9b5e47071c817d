/**
 * `a2a-replay run` end to end: a session recorded through `startRecorder` (what `record` starts)
 * in front of the deterministic peer (`startPeer`), golden receipts written with `--update`, then
 * replays that match (also byte for byte with `--strict`) and replays that must drift with the
 * exact paths. What the replay concludes is checked through the call `run` makes
 * (`replayRecordings`, rendered as `run` prints it: test/helpers/run-report.ts); the built CLI
 * runs where the command is the subject: its report and exit 0 on a match, and `--update`
 * refused under CI unless `--force`.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { parseShard } from '../../src/public/replay.js';
import { runCli } from '../helpers/cli.js';
import { replayReport } from '../helpers/run-report.js';
import { callerPauseSession } from '../replay/session.js';

let dir = '';
let recording = '';
let golden = '';
let keyFile = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-golden-'));
  recording = join(dir, 'session.jsonl');
  golden = join(dir, 'session.receipts.jsonl');
  keyFile = join(dir, 'key.json');
  let n = 0;
  const key = generateReceiptKey({
    kid: 'test-key',
    random: (size) => new Uint8Array(size).map(() => (n++ * 37) & 0xff),
  });
  await writeFile(keyFile, JSON.stringify(key.keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true });
  const recorder = await startRecorder({ upstream: peer.url, out: recording, warn: () => undefined });
  try {
    await callerPauseSession(recorder.url);
  } finally {
    await recorder.close();
    await peer.close();
  }
  await rm(golden, { force: true });
  const updated = await replayReport([recording], { update: true, key: keyFile });
  expect(updated.warnings).toEqual([]);
  expect(updated.code).toBe(0);
  expect(updated.stdout).toMatch(/UPDATED .*session\.receipts\.jsonl \(created\)/);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('run against the embedded deterministic peer', () => {
  it('matches the golden receipts and exits 0', async () => {
    const r = await runCli(['run', recording, '--key', keyFile]);
    expect(r.stdout).toMatch(/^PASS +.*session\.jsonl \(7 exchanges, 2 receipts/m);
    expect(r.code).toBe(0);
  });

  it('matches byte for byte with --strict, signatures included', async () => {
    const r = await replayReport([recording], { key: keyFile, strict: true });
    expect(r.code).toBe(0);
    const lines = (await readFile(golden, 'utf8')).trim().split('\n');
    expect(lines.some((l) => l.includes('"kid":"test-key"'))).toBe(true);
  });

  it('drifts against a legacy-pause peer, naming the receipt paths', async () => {
    const r = await replayReport([recording], { key: keyFile, legacyPause: true });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('DRIFT');
    expect(r.stdout).toContain('receipts[0].via: expected "PauseTask", actual "legacy-metadata"');
    expect(r.stdout).toMatch(/PauseTask response .*state: TASK_STATE_PAUSED → TASK_STATE_WORKING/);
    expect(r.stdout).toMatch(/timeline task:/);
  });

  it('refuses --update when CI is set unless --force, leaving the golden file as it was', async () => {
    const before = await readFile(golden, 'utf8');
    const refused = await runCli(['run', recording, '--update', '--key', keyFile], { env: { CI: 'true' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refused because CI is set \(add --force\)/);
    expect(await readFile(golden, 'utf8')).toBe(before);
    const forced = await runCli(['run', recording, '--update', '--force', '--key', keyFile], { env: { CI: 'true' } });
    expect(forced.code).toBe(0);
  });

  it('drifts against a hand-mutated golden file, naming the field', async () => {
    const mutated = join(dir, 'mutated.receipts.jsonl');
    await writeFile(mutated, (await readFile(golden, 'utf8')).replace('"reason":"review"', '"reason":"audit"'));
    const r = await replayReport([recording], { key: keyFile, golden: mutated });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('receipts[0].reason: expected "audit", actual "review"');
  });

  it('fails --strict on a changed signature that the default mode ignores', async () => {
    const resigned = join(dir, 'resigned.receipts.jsonl');
    const text = await readFile(golden, 'utf8');
    await writeFile(
      resigned,
      text.replace(
        /("sig":\{"alg":"hmac-sha256","kid":"test-key","value":")(.)/,
        (_m, a: string, c: string) => `${a}${c === 'A' ? 'B' : 'A'}`,
      ),
    );
    expect((await replayReport([recording], { key: keyFile, golden: resigned })).code).toBe(0);
    const strict = await replayReport([recording], { key: keyFile, golden: resigned, strict: true });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/receipts\[0\]\.sig\.value: expected/);
  });
});

/** A real HTTP proxy in front of the peer that misbehaves on one method. */
async function misbehavingPeer(
  upstream: string,
  rewrite: (method: string, body: string) => string | undefined,
  answer: (method: string, request: string) => string | undefined = () => undefined,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const method = body ? ((JSON.parse(body) as { method?: string }).method ?? '') : '';
      const own = answer(method, body);
      if (own !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(own);
        return;
      }
      const up = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          const out = rewrite(method, text) ?? text;
          const headers = { ...upRes.headers, 'content-length': String(Buffer.byteLength(out)) };
          res.writeHead(upRes.statusCode ?? 502, headers).end(out);
        });
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

describe('run against misbehaving peers', () => {
  it('names the cause when a peer resumes with another cause', async () => {
    const peer = await startPeer({ deterministic: true });
    const proxy = await misbehavingPeer(peer.url, (method, text) =>
      method === 'ResumeTask' ? text.replace('"explicit_resume"', '"external_event"') : undefined,
    );
    try {
      const r = await replayReport([recording], { key: keyFile, peer: proxy.url });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/ResumeTask response .*cause: explicit_resume → external_event/);
    } finally {
      await new Promise((resolve) => proxy.server.close(resolve));
      await peer.close();
    }
  });

  it('reports the missing pause when a peer ignores PauseTask', async () => {
    const peer = await startPeer({ deterministic: true });
    const ignorePause = (method: string, text: string): string | undefined => {
      if (method !== 'PauseTask') return undefined;
      const call = JSON.parse(text) as { id: number; params: { taskId: string } };
      return JSON.stringify({
        jsonrpc: '2.0',
        id: call.id,
        result: { taskId: call.params.taskId, state: 'TASK_STATE_WORKING' },
      });
    };
    const proxy = await misbehavingPeer(peer.url, () => undefined, ignorePause);
    try {
      const r = await replayReport([recording], { key: keyFile, peer: proxy.url });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /receipts\[0\] \(task-\S+ suspension 1\): expected \{.*"PAUSE_INITIATOR_CLIENT".*, actual \(absent\)/,
      );
      expect(r.stdout).toMatch(/ResumeTask response .*outcome: result → error, errorCode: none → -32010/);
      expect(r.stdout).toMatch(/PauseTask response .*state: TASK_STATE_PAUSED → TASK_STATE_WORKING/);
    } finally {
      await new Promise((resolve) => proxy.server.close(resolve));
      await peer.close();
    }
  });
});

describe('run over a corpus', () => {
  it('writes JUnit XML with one testcase per recording, and shards cover every recording once', async () => {
    const files: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const file = join(dir, `${name}.jsonl`);
      await copyFile(recording, file);
      await copyFile(golden, join(dir, `${name}.receipts.jsonl`));
      files.push(file);
    }
    const junit = join(dir, 'report.xml');
    const all = await replayReport(files, { key: keyFile, junit, concurrency: 2 });
    expect(all.code).toBe(0);
    const xml = await readFile(junit, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites [^>]*tests="3" failures="0" errors="0"/,
    );
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(wellFormed(xml)).toBe(true);

    const shards = await Promise.all(
      ['1/2', '2/2'].map((s) => replayReport(files, { key: keyFile, shard: parseShard(s), json: true })),
    );
    const ran = shards.flatMap((s) =>
      (JSON.parse(s.stdout) as { results: { recording: string }[] }).results.map((r) => r.recording),
    );
    expect(ran.sort()).toEqual([...files].sort());
  });
});

/** Tags balance and every attribute is quoted: enough to catch broken XML from a string builder. */
function wellFormed(xml: string): boolean {
  const stack: string[] = [];
  const body = xml.replace(/^<\?xml[^>]*\?>/, '');
  for (const m of body.matchAll(/<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>/g)) {
    if (m[1]) {
      if (stack.pop() !== m[2]) return false;
    } else if (!m[4]) stack.push(m[2] as string);
  }
  const stripped = body.replace(/<\/?[A-Za-z][\w.-]*(?:\s+[\w.-]+="[^"<]*")*\s*\/?>/g, '');
  return stack.length === 0 && !/[<>]/.test(stripped.replace(/&(lt|gt|amp|quot|apos);/g, ''));
}
