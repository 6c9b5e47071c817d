/**
 * `a2a-replay client` as users run it: the built CLI against the deterministic reference peer
 * (started in the test's process) over real sockets, in both bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { runCli } from '../helpers/cli.js';

let peer: RunningPeer;

beforeAll(async () => {
  peer = await startPeer({ deterministic: true });
});

afterAll(async () => {
  await peer.close();
});

/** The task id of a `task ID STATE ...` line. */
function taskIdOf(line: string): string {
  const id = /^task (\S+) /.exec(line)?.[1];
  if (id === undefined) throw new Error(`no task in ${JSON.stringify(line)}`);
  return id;
}

describe('a2a-replay client', () => {
  for (const binding of ['jsonrpc', 'rest'] as const) {
    it(`sends, pauses, resumes and gets a task over ${binding}, hiding the token unless asked`, async () => {
      const url = binding === 'rest' ? `${peer.url}/rest` : peer.url;
      const b = ['--binding', binding];
      const sent = await runCli(['client', url, 'send', 'work:2', ...b]);
      expect(sent.stderr).toBe('');
      expect(sent.code).toBe(0);
      expect(sent.stdout).toMatch(/^task \S+ TASK_STATE_WORKING context \S+\n$/);
      const task = taskIdOf(sent.stdout);

      const paused = await runCli([
        'client',
        url,
        'pause',
        task,
        '--mode',
        'interrupt_immediate',
        '--reason',
        'needs approval',
        ...b,
      ]);
      expect(paused.code).toBe(0);
      expect(paused.stdout).toBe(
        `task ${task} TASK_STATE_PAUSED by PAUSE_INITIATOR_CLIENT reason "needs approval" ` +
          'token hidden (--show-token prints it)\n',
      );

      const shown = await runCli(['client', url, 'get', task, '--show-token', ...b]);
      const token = / token (\S+)\n$/.exec(shown.stdout)?.[1];
      expect(token).toMatch(/^suspend-/);

      const wrong = await runCli(['client', url, 'resume', task, '--token', 'not-the-token', ...b]);
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr).toMatch(/^a2a-replay: ResumeTask refused: -32011 RESUME_TOKEN_MISMATCH: /);

      const resumed = await runCli([
        'client',
        url,
        'resume',
        task,
        '--token',
        token ?? '',
        '--input',
        '{"approved":true}',
        ...b,
      ]);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(new RegExp(`^task ${task} TASK_STATE_WORKING cause explicit_resume at \\S+\\n$`));

      const advanced = await runCli(['client', url, 'advance', '5000', ...b]);
      expect(advanced.code).toBe(0);
      expect(advanced.stdout).toMatch(/^clock \d{4}-\d\d-\d\dT[\d:.]+Z\n$/);

      const done = await runCli(['client', url, 'get', task, ...b]);
      expect(done.stdout).toMatch(new RegExp(`^task ${task} TASK_STATE_COMPLETED context \\S+ artifacts 2\\n$`));
    });
  }

  it('says an error of the peer and exits 1', async () => {
    const r = await runCli(['client', peer.url, 'get', 'no-such-task']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'a2a-replay: GetTask refused: -32001 TASK_NOT_FOUND: params.id: no task with id "no-such-task"\n',
    );
  });

  it('exits 3 when the peer cannot be reached', async () => {
    const r = await runCli(['client', 'http://127.0.0.1:1/', 'get', 't-1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^a2a-replay: http:\/\/127\.0\.0\.1:1\/: cannot reach it/);
  });

  it('refuses bad usage with exit 2, naming what was wrong', async () => {
    const cases: [string[], string][] = [
      [
        ['client', peer.url, 'frob'],
        'client: unknown action "frob"; expected one of send, get, pause, resume, advance, fire',
      ],
      [['client', peer.url, 'resume', 't-1'], 'client resume: --token is required (the pause printed it)'],
      [['client', peer.url, 'resume', 't-1', '--token', 'x', '--input', '{'], '--input: not JSON'],
      [['client', peer.url, 'pause', 't-1', '--mode', 'later'], '--mode: expected one of'],
      [['client', peer.url, 'send'], 'client send: expected one TEXT; got none'],
      [['client', 'not a url', 'get', 't-1'], 'client: "not a url" is not a URL'],
      [['client', peer.url, 'get', 't-1', '--binding', 'grpc'], '--binding: expected jsonrpc or rest'],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`a2a-replay: ${message}`);
    }
  });
});
