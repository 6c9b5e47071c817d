/**
 * The recorder's options: receipt log durability and checkpoints (`checkpointEvery`, `fsync`),
 * refusing to overwrite a receipt log, files of mode 0600, and tracing that fails or runs without a
 * key — the recording always completes. What the recorder writes is shown with `startRecorder` in
 * front of the reference peer in this process, and what `verify` and `run` conclude of it with the
 * calls they make; a refused option is a RecorderOptionError naming it. `a2a-replay record` (a
 * process) where the command is the subject: a recording that exists and bad flags, each a usage
 * error (exit 2) naming the flag.
 */
import { access, chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { generateReceiptKey, loadKeyring } from '../../src/public/receipts.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { type RecorderOptions, RecorderOptionError, startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { recordPauseSessionHere } from '../helpers/in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { verifyVerdict } from '../helpers/verdicts.js';
import { type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

let dir = '';
let keyFile = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-options-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, JSON.stringify(generateReceiptKey({ kid: 'k-options' }).keyFile()), { mode: 0o600 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const types = async (file: string): Promise<string[]> =>
  (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string }).type);

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('writes a checkpoint after each receipt with checkpointEvery 1 and fsync always; the log verifies', async () => {
  const out = join(dir, 'every.jsonl');
  await recordPauseSessionHere({ out, key: keyFile, checkpointEvery: 1, fsync: 'always' });
  const receipts = join(dir, 'every.receipts.jsonl');
  expect(await types(receipts)).toEqual([
    'ReceiptLog',
    'SuspensionReceipt',
    'Checkpoint',
    'ResumptionReceipt',
    'Checkpoint',
    'ResumptionReceipt',
    'Checkpoint',
    'SuspensionReceipt',
    'Checkpoint',
    // The closing checkpoint, after the one the interval made.
    'Checkpoint',
  ]);
  const verdict = await verifyVerdict([receipts], [keyFile]);
  expect(verdict.stdout).toContain('ok: 4 receipts, 5 checkpoints');
  expect(verdict.code).toBe(0);
  // Replay reads the interval from the golden log's checkpoints and cuts its own log the same way.
  const { keyring } = await loadKeyring({ keys: [keyFile], env: {} });
  const strict = await replayReport([out], { keyring, strict: true });
  expect(strict.stdout).toMatch(/^PASS /m);
  expect(strict.code).toBe(0);
});

it('keeps the latest checkpoint in a witness file that detects a cut log; every file it writes is 0600', async () => {
  const out = join(dir, 'witnessed.jsonl');
  const witness = join(dir, 'witnessed.checkpoint');
  await recordPauseSessionHere({ out, key: keyFile, checkpointEvery: 1, witness });
  const receipts = join(dir, 'witnessed.receipts.jsonl');
  for (const file of [out, receipts, witness]) expect((await stat(file)).mode & 0o777).toBe(0o600);
  // Resume tokens are capabilities: the recording holds their placeholders, never the tokens.
  const recorded = await readFile(out, 'utf8');
  expect(recorded).toMatch(/"resumeToken":"a2a-replay:resume-token:sha256:[0-9a-f]{64}"/);
  expect(recorded).not.toMatch(/"resumeToken":"(?!a2a-replay:resume-token:)/);
  const lines = (await readFile(receipts, 'utf8')).trim().split('\n');
  // The latest checkpoint, after the LogHead naming its log (the head of the series it may begin).
  const [head, checkpoint] = (await readFile(witness, 'utf8')).trim().split('\n');
  expect(checkpoint).toBe(lines.at(-1));
  expect(JSON.parse(head!)).toMatchObject({ type: 'LogHead', position: 1 });
  const anchored = await verifyVerdict([receipts], [keyFile], { head: witness });
  expect(anchored.stdout).toContain('matches the outside checkpoint');
  expect(anchored.code).toBe(0);
  // Cut after the third receipt's checkpoint: every line signed and chained, but it ends at an
  // intermediate checkpoint, so it is open; the witness also knows how much is missing.
  const cut = join(dir, 'witnessed-cut.receipts.jsonl');
  await writeFile(cut, `${lines.slice(0, 7).join('\n')}\n`);
  const open = await verifyVerdict([cut], [keyFile]);
  expect(open.code).toBe(1);
  expect(open.stdout).toMatch(/INVALID at line 8: not_closed: .*intermediate checkpoint/);
  const detected = await verifyVerdict([cut], [keyFile], { head: witness });
  expect(detected.code).toBe(1);
  expect(detected.stdout).toMatch(/INVALID at line 8: truncated: /);
});

it('refuses to start over an existing receipt log and leaves the recording untouched', async () => {
  const out = join(dir, 'kept.jsonl');
  await writeFile(join(dir, 'kept.receipts.jsonl'), 'an earlier audit log\n');
  // A RecorderOptionError, which `record` gives as a usage error (exit 2) as the test below shows.
  const refused = startRecorder({ upstream: 'http://127.0.0.1:9', out, key: keyFile, warn: () => undefined });
  await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
  await expect(refused).rejects.toMatchObject({
    options: ['receipts'],
    detail: expect.stringMatching(/kept\.receipts\.jsonl already exists/) as unknown,
  });
  await expect(access(out)).rejects.toMatchObject({ code: 'ENOENT' });
  expect(await readFile(join(dir, 'kept.receipts.jsonl'), 'utf8')).toBe('an earlier audit log\n');
});

it('refuses to overwrite an existing recording unless --force, and names the file', async () => {
  const out = join(dir, 'earlier.jsonl');
  await writeFile(out, 'an earlier recording\n');
  const refused = await runCli(['record', '--upstream', 'http://127.0.0.1:9', '--out', out], {
    env: { A2A_REPLAY_KEY_FILE: '' },
  });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/--out: .*earlier\.jsonl already exists: name another file, or pass --force/);
  expect(await readFile(out, 'utf8')).toBe('an earlier recording\n');

  await recordPauseSessionHere({ out, force: true });
  const written = await readFile(out, 'utf8');
  expect(written).not.toContain('an earlier recording');
  expect(written).toContain('"PauseTask"');
});

it('writes the recording and the receipt log with mode 0600, a forced overwrite too', async () => {
  const out = join(dir, 'private.jsonl');
  await writeFile(out, 'an earlier recording\n');
  await chmod(out, 0o644);
  await recordPauseSessionHere({ out, force: true, key: keyFile });
  for (const file of [out, join(dir, 'private.receipts.jsonl')]) {
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  }
  expect((await readRecording(out)).entries.length).toBeGreaterThan(10);
});

it('rejects an fsync policy it does not know, naming the option', async () => {
  // `record --fsync sometimes` passes the word on: the flag is named as the usage errors below show.
  const refused = startRecorder({
    upstream: 'http://127.0.0.1:9',
    out: join(dir, 'x.jsonl'),
    fsync: 'sometimes' as RecorderOptions['fsync'],
    warn: () => undefined,
  });
  await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
  await expect(refused).rejects.toMatchObject({
    options: ['fsync'],
    detail: 'expected one of always, batch, never; got "sometimes"',
  });
  await expect(access(join(dir, 'x.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
});

it.each([
  [['--checkpoint-every', '-1'], /--checkpoint-every: expected an integer of at least 0/],
  [
    ['--max-body-bytes', '4096', '--max-observed-bytes', '1024'],
    /--max-observed-bytes: 1024 is below --max-body-bytes \(4096\)/,
  ],
])('rejects %j as a usage error', async (args, message) => {
  const result = await runCli(['record', '--upstream', 'http://127.0.0.1:9', '--out', join(dir, 'x.jsonl'), ...args]);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
});

it('tells an unreachable otlp endpoint once and still completes recording and receipts', async () => {
  const out = join(dir, 'otlp.jsonl');
  const endpoint = `http://127.0.0.1:${await closedPort()}`;
  // The standard variable shortens the exporter's retrying of the refused connection (5 s by default).
  const { summary, warnings } = await recordPauseSessionHere({
    out,
    key: keyFile,
    otlp: endpoint,
    env: { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '300' },
  });
  // The failure once, nothing else; the recording and its receipts complete.
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(new RegExp(`^tracing: OTLP export to ${endpoint}/v1/traces failed`));
  expect(summary).toMatchObject({ complete: true, receipts: 4 });
  expect((await readRecording(out)).entries.length).toBeGreaterThan(10);
  const verdict = await verifyVerdict([join(dir, 'otlp.receipts.jsonl')], [keyFile]);
  expect(verdict.stdout).toContain('ok: 4 receipts');
  expect(verdict.code).toBe(0);
});

it('produces the spans without a key: a trace file and no receipt log', async () => {
  const out = join(dir, 'session', 'recording.jsonl');
  const traces = join(dir, 'traces');
  await mkdir(join(dir, 'session'));
  const { warnings } = await recordPauseSessionHere({ out, traces });
  expect(warnings.join('\n')).toContain('recording without receipts');
  await expect(access(join(dir, 'session', 'recording.receipts.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
  // `<scenario>/recording.jsonl` is traced under the scenario's name, as `run` names it.
  const spans = spansOf(JSON.parse(await readFile(join(traces, 'session.otlp.json'), 'utf8')) as OtlpTraceRequest);
  const suspensions = spans.filter((s) => s.name === 'Suspension');
  expect(suspensions).toHaveLength(2);
  expect(suspensions.map((s) => attributesOf(s.attributes)['a2a.pause.via'])).toEqual(['PauseTask', 'PauseTask']);
  expect(suspensions.map((s) => attributesOf(s.attributes)['a2a.receipt.hash'])).toEqual([undefined, undefined]);
  expect(spans.filter((s) => s.name === 'Resume')).toHaveLength(2);
  expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);
  expect(spans.filter((s) => s.name === 'PauseOpenAtStop')).toHaveLength(1);
});
