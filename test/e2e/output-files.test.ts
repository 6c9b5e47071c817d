/**
 * Every file the CLI writes is its own: the recording, its witness file and `report --out` never
 * write through a symbolic link (a dangling one is not followed to create its target, `force`
 * does not truncate or chmod what it points to), refusing one with an error naming the path:
 * `record` and `report` (processes) as a usage error naming the flag, `startRecorder` (in this
 * process) as a RecorderOptionError naming the option; the files the recorder writes (under a
 * umask that would not hide their modes) are new ones of mode 0600; and the reports and traces
 * `run`, `report` and `mock` write are mode 0600, as recordings are, since they name principals,
 * reasons and task ids.
 */
import { existsSync } from 'node:fs';
import { link, lstat, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/public/peer.js';
import { RecorderOptionError, startRecorder } from '../../src/public/record.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { stopProcess, startMockProcess } from '../helpers/cli-process.js';
import { startTestRecorder } from '../helpers/in-process.js';

const GOLDEN = join(ROOT, 'golden');
const RECORDING = join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl');

let dir = '';
let umask = 0;

beforeAll(() => {
  // The files' modes must come from the code that writes them, not from a umask that happens to hide them.
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'output-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (file: string): Promise<number> => (await stat(file)).mode & 0o777;

describe('outputs and symbolic links', () => {
  it('record --out refuses a dangling link instead of creating its target', async () => {
    const target = join(dir, 'elsewhere.jsonl');
    const out = join(dir, 'session.jsonl');
    await symlink(target, out);
    const r = await runCli(['record', '--upstream', 'http://127.0.0.1:9', '--out', out], {
      env: { A2A_REPLAY_KEY_FILE: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out: ${out} is a symbolic link: refusing to write through it`);
    expect(existsSync(target)).toBe(false);
  });

  it('recording with force neither truncates nor chmods the file a link out points to', async () => {
    const target = join(dir, 'precious.txt');
    await writeFile(target, 'keep me\n', { mode: 0o644 });
    const out = join(dir, 'session.jsonl');
    await symlink(target, out);
    // Refused naming `out`, which `record` gives as the usage error above.
    const refused = startRecorder({ upstream: 'http://127.0.0.1:9', out, force: true, warn: () => undefined });
    await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
    await expect(refused).rejects.toMatchObject({
      options: ['out'],
      detail: expect.stringContaining(`${out} is a symbolic link`) as unknown,
    });
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    expect(await modeOf(target)).toBe(0o644);
  });

  it('recording with force replaces a file by a new one of mode 0600, leaving another name intact', async () => {
    const out = join(dir, 'session.jsonl');
    await writeFile(out, 'old\n', { mode: 0o644 });
    const other = join(dir, 'other-name.jsonl');
    await link(out, other);
    const peer = await startPeer({ deterministic: true });
    try {
      const recorder = await startTestRecorder({ upstream: peer.url, out, force: true });
      expect((await recorder.close()).complete).toBe(true);
    } finally {
      await peer.close();
    }
    expect(await readFile(out, 'utf8')).toMatch(/^\{.*"type":"recording"/);
    expect(await modeOf(out)).toBe(0o600);
    expect(await readFile(other, 'utf8')).toBe('old\n');
    expect(await modeOf(other)).toBe(0o644);
  });

  it('the witness file is written beside its path under a fresh name, never through a link', async () => {
    const key = join(dir, 'key.json');
    await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'w' }).keyFile()), { mode: 0o600 });
    const witness = join(dir, 'witness.json');
    const target = join(dir, 'target.txt');
    // Where the witness's temporary file used to be: a link planted there was followed.
    await symlink(target, `${witness}.tmp`);
    const peer = await startPeer({ deterministic: true });
    onTestFinished(() => peer.close());
    const out = join(dir, 'session.jsonl');
    const recorder = await startTestRecorder({ upstream: peer.url, out, key, witness, fsync: 'never' });
    expect((await recorder.close()).complete).toBe(true);
    expect(existsSync(target)).toBe(false);
    expect((await lstat(witness)).isFile()).toBe(true);
    expect(await readFile(witness, 'utf8')).toContain('"type":"Checkpoint"');
    expect(await modeOf(witness)).toBe(0o600);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual(['witness.json.tmp']);

    const linked = join(dir, 'linked-witness.json');
    await symlink(target, linked);
    const refused = startRecorder({
      upstream: peer.url,
      out: join(dir, 'b.jsonl'),
      key,
      witness: linked,
      warn: () => undefined,
    });
    await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
    await expect(refused).rejects.toMatchObject({
      options: ['witness'],
      detail: expect.stringContaining(`${linked} is a symbolic link`) as unknown,
    });
    expect(existsSync(target)).toBe(false);
  });

  it('report --out refuses a link, and writes a new report with mode 0600', async () => {
    const target = join(dir, 'target.html');
    await writeFile(target, 'mine', { mode: 0o644 });
    const linked = join(dir, 'linked.html');
    await symlink(target, linked);
    const refused = await runCli(['report', RECORDING, '--out', linked]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${linked} is a symbolic link`);
    expect(await readFile(target, 'utf8')).toBe('mine');

    const out = join(dir, 'report.html');
    await writeFile(out, 'old', { mode: 0o644 });
    const written = await runCli(['report', RECORDING, '--out', out]);
    expect(written.code, written.stderr).toBe(0);
    expect(await modeOf(out)).toBe(0o600);
  });
});

describe('output modes', () => {
  it('run writes its JUnit, HTML and trace files with mode 0600', async () => {
    const junit = join(dir, 'junit.xml');
    const html = join(dir, 'run.html');
    const traces = join(dir, 'traces');
    const r = await runCli(['run', RECORDING, '--junit', junit, '--html', html, '--traces', traces]);
    expect(r.code, r.stderr).toBe(0);
    const traceFiles = (await readdir(traces)).map((name) => join(traces, name));
    expect(traceFiles.length).toBeGreaterThan(0);
    for (const file of [junit, html, ...traceFiles]) expect(await modeOf(file), file).toBe(0o600);
  });

  it('mock --report writes its report with mode 0600', async () => {
    const report = join(dir, 'mock-report.json');
    const mock = await startMockProcess([RECORDING, '--report', report]);
    expect(await stopProcess(mock)).toBe(0);
    expect(await modeOf(report)).toBe(0o600);
  });
});
