/**
 * `a2a-replay record` keeps live resume tokens out of the recording wherever a body shows them:
 * under a member name written with escapes (`"resume\u0054oken"`, which the recording writes
 * decoded), and in body text the recorder cannot parse (a body over `--max-body-bytes`, kept as
 * its first bytes), by the member that names a token and by the tokens the session has seen.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readRecording } from '../../src/recording/recording-reader.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';
import { type CliProcess, startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
const procs: CliProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-token-text-'));
});
afterEach(async () => {
  for (const p of procs.splice(0)) await stopProcess(p, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const CAP = 4096;

it('writes no live resume token, under an escaped member name or in the head of a body over the cap', async () => {
  const peer = await startCliProcess(['peer', '--deterministic']);
  procs.push(peer);
  const out = join(dir, 'tokens.jsonl');
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--max-body-bytes', String(CAP)], {
    A2A_REPLAY_KEY_FILE: '',
  });
  procs.push(recorder);
  let id = 1;
  const post = async (text: string, path = '/', to = recorder.url): Promise<string> => {
    const res = await fetch(`${to}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: text,
    });
    return res.text();
  };
  const rpc = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: id++, method, params });
  const start = async (texts: string[], to = recorder.url): Promise<string> => {
    const message = { messageId: `m-${id}`, role: 'ROLE_USER', parts: texts.map((text) => ({ text })) };
    const sent = await post(rpc('SendMessage', { message, configuration: { returnImmediately: true } }), '/', to);
    return (JSON.parse(sent) as { result: { task: { id: string } } }).result.task.id;
  };

  // A: paused by the client (the session sees its token in the answer), then resumed with the
  // member name escaped.
  const a = await start(['work:3']);
  await post(rpc('AdvanceClock', { ms: 1000 }), '/control');
  const paused = await post(rpc('PauseTask', { taskId: a, reason: 'review' }));
  const first = (JSON.parse(paused) as { result: { pause: { resumeToken: string } } }).result.pause.resumeToken;
  const escaped =
    `{"jsonrpc":"2.0","id":${id++},"method":"ResumeTask",` +
    `"params":{"taskId":"${a}","resume\\u0054oken":"${first}"}}`;
  expect(await post(escaped)).toContain('"result"');

  // B, started past the recorder: a message quoting A's token, long enough that the task's
  // GetTask answer runs over the cap; the task parks itself, so its own token is first shown in
  // that answer's head.
  const b = await start([`work:1 await:ci.done:30`, `note ${first} ${'y'.repeat(CAP)}`], peer.url);
  await post(rpc('AdvanceClock', { ms: 2000 }), '/control', peer.url);
  const got = await post(rpc('GetTask', { id: b }));
  const second = (JSON.parse(got) as { result: { status: { pause: { resumeToken: string } } } }).result.status.pause
    .resumeToken;
  expect(got.length).toBeGreaterThan(CAP);
  expect(got.indexOf(`note ${first}`)).toBeLessThan(CAP);
  expect(await stopProcess(recorder)).toBe(0);

  const text = await readFile(out, 'utf8');
  for (const secret of [first, second]) expect(text.includes(secret), `the recording holds ${secret}`).toBe(false);
  const entries = (await readRecording(out)).entries;
  const resume = entries.find((e) => e.kind === 'request' && JSON.stringify(e.body).includes('ResumeTask'));
  expect(resume?.body).toMatchObject({ params: { resumeToken: tokenPlaceholder(first) } });
  const kept = entries.filter((e) => e.bodyText !== undefined).map((e) => e.bodyText!);
  expect(kept.length).toBe(1);
  expect(kept[0]).toContain(`"resumeToken":"${tokenPlaceholder(second)}"`);
  expect(kept[0]).toContain(`note ${tokenPlaceholder(first)} yyy`);
});
