/**
 * `run` compares what the peer answers, not only states and receipts: a recording whose GetTask
 * answer holds one artifact more than the live peer returns fails, naming the artifact path; a
 * `--ignore` rule for that path lets it pass. Commands that load a key warn when others can read it.
 * What the replay concludes is checked in-process, as `run` replays (`replayRecordings`, rendered
 * as `run` prints it: test/helpers/run-report.ts, the noise rules of `--config` read by
 * `readReplayConfig`); the built CLI runs for what only the command does: the key file's warning
 * on standard error, and the usage errors of a missing config file or recording.
 */
import { chmod, copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { loadKeyFile } from '../../src/receipts/key-file.js';
import { readRecordingBinding } from '../../src/receipts/recording-binding.js';
import { signCheckpoint } from '../../src/receipts/signing.js';
import type { Checkpoint } from '../../src/receipts/types.js';
import { readReplayConfig } from '../../src/public/replay.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { replayReport } from '../helpers/run-report.js';

const SCENARIO = join(ROOT, 'golden/caller-pause-finish-step');
let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-content-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * The scenario's recording with one artifact added to its last recorded answer, beside its golden
 * log. The log's closing checkpoint binds the recording's last line (docs/design.md §6), so the
 * copy binds the edited recording, signed again with the golden key: the log is the one a
 * recorder would have closed over this recording, and only the answer's content differs.
 */
async function withExtraArtifact(): Promise<string> {
  const lines = (await readFile(join(SCENARIO, 'recording.jsonl'), 'utf8')).trimEnd().split('\n');
  const last = lines.length - 1;
  const entry = JSON.parse(lines[last] as string) as { body: { result: { artifacts: unknown[] } } };
  entry.body.result.artifacts.push({ artifactId: 'artifact-extra', name: 'extra', parts: [{ text: 'more' }] });
  lines[last] = JSON.stringify(entry);
  const recording = join(dir, 'recording.jsonl');
  await writeFile(recording, `${lines.join('\n')}\n`);
  const log = (await readFile(join(SCENARIO, 'recording.receipts.jsonl'), 'utf8')).trimEnd().split('\n');
  const { sig: _sig, ...closing } = JSON.parse(log.at(-1) as string) as Checkpoint;
  closing.recording = await readRecordingBinding(recording);
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  log[log.length - 1] = canonicalJson({ ...closing, sig: signCheckpoint(closing, key) });
  await writeFile(join(dir, 'recording.receipts.jsonl'), `${log.join('\n')}\n`);
  return recording;
}

it('fails on an artifact the peer no longer returns and names its path', async () => {
  const recording = await withExtraArtifact();
  const index =
    (
      JSON.parse((await readFile(recording, 'utf8')).trimEnd().split('\n').pop() as string) as {
        body: { result: { artifacts: unknown[] } };
      }
    ).body.result.artifacts.length - 1;
  const result = await replayReport([recording], { key: join(ROOT, 'golden/test-key.json') });
  expect(result.code).toBe(1);
  expect(result.stdout).toContain(`/result/artifacts/${index}`);

  const ignored = await replayReport([recording], {
    key: join(ROOT, 'golden/test-key.json'),
    ignore: ['/result/artifacts/*'],
  });
  expect(ignored.stdout).toMatch(/^PASS /m);
  expect(ignored.code).toBe(0);
});

it('passes the untouched recording (content equal)', async () => {
  const result = await replayReport([join(SCENARIO, 'recording.jsonl')], { key: join(ROOT, 'golden/test-key.json') });
  expect(result.stdout).toMatch(/^PASS /m);
  expect(result.code).toBe(0);
});

it('warns when the key file given to run is readable by others, without printing it', async () => {
  const key = join(dir, 'key.json');
  await copyFile(join(ROOT, 'golden/test-key.json'), key);
  await chmod(key, 0o644);
  const result = await runCli(['run', join(SCENARIO, 'recording.jsonl'), '--key', key]);
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(
    /warning: .*key\.json holds secret keys but is readable by group or others .*chmod 600/,
  );
  const secret = (JSON.parse(await readFile(key, 'utf8')) as { hmac?: string; secret?: string }).hmac;
  if (secret) expect(result.stderr + result.stdout).not.toContain(secret);
});

it('reads noise rules from a config file, and refuses a named config file that is missing', async () => {
  const recording = await withExtraArtifact();
  const config = join(dir, 'rules.json');
  await writeFile(config, JSON.stringify({ replay: { ignore: { GetTask: ['/result/artifacts/*'] } } }));
  const key = join(ROOT, 'golden/test-key.json');
  // `--config FILE` is read as `run` reads it: the file is required, its noise rules apply.
  const { noise } = await readReplayConfig(config, { required: true });
  const passed = await replayReport([recording], { key, noise });
  expect(passed.stdout).toMatch(/^PASS /m);
  expect(passed.code).toBe(0);
  const missing = await runCli(['run', recording, '--key', key, '--config', join(dir, 'absent.json')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('absent.json: cannot read (ENOENT)');
});

it('exits 2 naming a recording that does not exist, and counts one receipt in the singular', async () => {
  const absent = join(dir, 'absent.jsonl');
  const missing = await runCli(['run', absent]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`${absent}: no such file`);

  const single = await replayReport([join(ROOT, 'golden/lost-pause/recording.jsonl')]);
  expect(single.stdout).toMatch(/^PASS .*\(\d+ exchanges?, 1 receipt[,)]/m);
});

it('writes one trace file per recording when two recordings share a file name', async () => {
  const copies = [join(dir, 'a'), join(dir, 'b')];
  for (const copy of copies) {
    await mkdir(copy);
    await copyFile(join(ROOT, 'golden/lost-pause/recording.jsonl'), join(copy, 'session.jsonl'));
    await copyFile(join(ROOT, 'golden/lost-pause/recording.receipts.jsonl'), join(copy, 'session.receipts.jsonl'));
  }
  const traces = join(dir, 'traces');
  const result = await replayReport(
    copies.map((c) => join(c, 'session.jsonl')),
    { traces },
  );
  expect(result.code).toBe(0);
  const files = (await readdir(traces)).sort();
  expect(files).toHaveLength(2);
  expect(files.every((f) => /^session-[0-9a-f]{8}\.otlp\.json$/.test(f))).toBe(true);
});
