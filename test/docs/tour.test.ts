/**
 * The README's tour, run as written: every `npx a2a-replay` line of its block, in order, as real
 * processes over real sockets (the servers in the background, as a user runs them in their own
 * terminals), the addresses, task id and token the commands print put where the tour says.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type CliResult, runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, stopProcess } from '../helpers/cli-process.js';

/** The `npx a2a-replay` lines of the README's tour block, comments cut off. */
async function tourCommands(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const block = /## A tour\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no tour block');
  return block
    .split('\n')
    .filter((line) => line.startsWith('npx a2a-replay '))
    .map((line) => line.replace(/\s+#.*$/, '').slice('npx a2a-replay '.length));
}

/** Words as a shell splits them here: double quotes group. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

let dir: string;
const servers: CliProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-tour-'));
});

afterAll(async () => {
  for (const server of servers) await stopProcess(server);
  await rm(dir, { recursive: true, force: true });
});

describe('the README tour', () => {
  it('runs as written: receipts written, a pause and its resume, verify ok, run PASS', async () => {
    const commands = await tourCommands();
    expect(commands.map((c) => words(c)[0])).toEqual([
      'peer',
      'keygen',
      'record',
      'client',
      'client',
      'client',
      'client',
      'client',
      'lost',
      'verify',
      'audit',
      'run',
    ]);
    const values = new Map<string, string>();
    const substitute = (text: string): string =>
      text.replace(/\b(PEER|REC|TASK|TOKEN)\b/g, (name) => {
        const value = values.get(name);
        if (value === undefined) throw new Error(`${name} is used before a command printed it`);
        return value;
      });
    const results = new Map<string, CliResult>();
    let recorder: CliProcess | undefined;
    for (const command of commands) {
      const args = words(command).map(substitute);
      const name = args[0] as string;
      if (name === 'peer' || name === 'record') {
        const server = await startCliProcess(args, {}, { cwd: dir });
        servers.push(server);
        values.set(name === 'peer' ? 'PEER' : 'REC', new URL(server.url).port);
        if (name === 'record') recorder = server;
        continue;
      }
      if (name !== 'client' && recorder !== undefined) {
        // The tour's Ctrl-C: the recorder closes its files before they are read.
        expect(await stopProcess(recorder, 'SIGINT'), recorder.stderr()).toBe(0);
        expect(recorder.stderr()).toMatch(/a2a-replay: stopped: \d+ exchanges, 1 pause, 1 resume, 2 receipts, 0 lost /);
        expect(recorder.stderr()).toMatch(/; wrote session\.jsonl and session\.receipts\.jsonl\n$/);
        recorder = undefined;
      }
      const result = await runCli(args, { cwd: dir });
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
      results.set(args.slice(0, 3).join(' '), result);
      if (args[2] === 'send') values.set('TASK', /^task (\S+) TASK_STATE_WORKING /.exec(result.stdout)?.[1] ?? '');
      if (args[2] === 'pause') values.set('TOKEN', / token (\S+)\n$/.exec(result.stdout)?.[1] ?? '');
    }

    expect((await stat(join(dir, 'session.receipts.jsonl'))).mode & 0o777).toBe(0o600);
    const task = values.get('TASK') as string;
    const rec = `http://127.0.0.1:${values.get('REC')}`;
    expect(results.get(`client ${rec} get`)?.stdout).toMatch(
      new RegExp(`^task ${task} TASK_STATE_COMPLETED context \\S+ artifacts 3\\n$`),
    );
    expect(results.get('lost session.jsonl')?.stdout).toContain('no lost pauses');
    expect(results.get('verify session.receipts.jsonl --key')?.stdout).toContain(
      'session.receipts.jsonl: ok: 2 receipts',
    );
    expect(results.get('audit session.receipts.jsonl --key')?.stdout).toMatch(
      new RegExp(`\\n${task} +client +- +needs approval .* resumed \\(explicit_resume\\)`),
    );
    expect(results.get('run session.jsonl --key')?.stdout).toMatch(/^PASS +session\.jsonl /);
  });
});
