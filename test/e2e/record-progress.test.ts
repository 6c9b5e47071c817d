/**
 * What `record` says while it runs and when it stops: the real CLI process (what it prints is the
 * subject) in front of the deterministic reference peer (`startPeer`, in this process), over real
 * sockets.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { ROOT, builtCli, childEnv } from '../helpers/cli.js';
import { startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { PeerClient } from '../peer/peer-client.js';

let dir: string;
let key: string;
let peer: RunningPeer;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-record-progress-'));
  key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'progress' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});

afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Records one pause and resume (and an agent's self-park left open: lost at the end) through a
 * recorder started with `flags`; resolves with its stderr after SIGTERM, and the files it wrote.
 */
async function session(flags: string[]): Promise<{ stderr: string; code: number | null; out: string; task: string }> {
  const out = join(dir, `session-${++runs}.jsonl`);
  const recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', key, ...flags]);
  const client = new PeerClient(recorder.url);
  const task = await client.start('work:2');
  const paused = await client.result<{ pause: { resumeToken: string } }>('PauseTask', {
    taskId: task.id,
    reason: 'needs approval',
    mode: 'interrupt_immediate',
  });
  await client.result('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  await client.start('await:approval');
  const code = await stopProcess(recorder);
  return { stderr: recorder.stderr(), code, out, task: task.id };
}

describe('record says what happens', () => {
  it('with --progress, says each pause, resume and lost pause as it happens, then the summary', async () => {
    const s = await session(['--progress']);
    expect(s.code).toBe(0);
    const lines = s.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toContain(
      `a2a-replay: paused task ${s.task} by the client (no principal) via PauseTask: "needs approval"`,
    );
    expect(lines).toContain(`a2a-replay: resumed task ${s.task} by no principal (cause explicit_resume)`);
    expect(
      lines.some((l) => /^a2a-replay: paused task \S+ by the agent \(no principal\) via statusUpdate/.test(l)),
    ).toBe(true);
    expect(lines.some((l) => /^a2a-replay: lost pause of task \S+: .*recording_ended/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe(
      `a2a-replay: stopped: 4 exchanges, 2 pauses, 1 resume, 3 receipts, 1 lost pause; ` +
        `wrote ${s.out} and ${s.out.replace(/\.jsonl$/, '.receipts.jsonl')}`,
    );
  });

  it('says only the summary when stderr is not a terminal', async () => {
    const s = await session([]);
    expect(s.code).toBe(0);
    expect(s.stderr).not.toContain('paused task');
    expect(s.stderr).not.toContain('lost pause of');
    expect(
      s.stderr
        .split('\n')
        .filter((l) => l !== '')
        .at(-1),
    ).toBe(
      `a2a-replay: stopped: 4 exchanges, 2 pauses, 1 resume, 3 receipts, 1 lost pause; ` +
        `wrote ${s.out} and ${s.out.replace(/\.jsonl$/, '.receipts.jsonl')}`,
    );
  });

  it('says neither with --quiet, even with --progress', async () => {
    const s = await session(['--quiet', '--progress']);
    expect(s.code).toBe(0);
    expect(s.stderr).toBe('');
  });
});

/** util-linux `script`, which runs a command on a pseudo-terminal of its own. */
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('record on a terminal', () => {
  it('says each pause as it happens without --progress, and stops on Ctrl-C with the summary', async () => {
    const out = join(dir, 'terminal.jsonl');
    // `exec`: script runs the command through $SHELL -c, and a shell that does not exec the last
    // command itself (dash) would take the Ctrl-C's SIGINT too and exit 130 while waiting.
    const command =
      'exec ' +
      [process.execPath, builtCli(), 'record', '--upstream', peer.url, '--out', out, '--key', key]
        .map((word) => `'${word}'`)
        .join(' ');
    // stdout and stderr are both the pty here; stdin is written to it, so \x03 is the user's Ctrl-C.
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: childEnv() });
    let text = '';
    const seen = (pattern: RegExp): Promise<RegExpExecArray> =>
      new Promise((resolve, reject) => {
        const look = (): boolean => {
          const match = pattern.exec(text);
          if (match) resolve(match);
          return match !== null;
        };
        if (look()) return;
        const onData = (): void => {
          if (look()) child.stdout.off('data', onData);
        };
        child.stdout.on('data', onData);
        child.on('exit', () => reject(new Error(`record exited before ${pattern}: ${text}`)));
      });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // A failed expectation must not leave the recorder running.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const url = (await seen(/listening on (http:\/\/\S+)\r\n/))[1] as string;
    const task = await new PeerClient(url).start('await:approval');
    await seen(
      /a2a-replay: paused task \S+ by the agent \(no principal\) via statusUpdate: "awaiting event approval"\r\n/,
    );
    expect(text).not.toContain('stopped:');
    child.stdin.write('\x03');
    expect(await exited).toBe(0);
    expect(text).toContain(`a2a-replay: lost pause of task ${task.id}: `);
    expect(text).toMatch(
      /a2a-replay: stopped: 1 exchange, 1 pause, 0 resumes, 1 receipt, 1 lost pause; wrote \S+terminal\.jsonl and /,
    );
  });
});
