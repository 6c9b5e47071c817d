/**
 * @module cli/commands/client
 * `a2a-replay client URL ACTION ...`: a small A2A client for trying a peer or the recorder by hand
 * (docs/design.md §9). `send TEXT`, `get TASK`, `pause TASK`, `resume TASK --token T` over JSON-RPC
 * (`POST URL`) or, with `--binding rest`, over HTTP+JSON (URL is then the interface URL, the
 * reference peer's `/rest`); `advance MS` and `fire EVENT` go to the control channel
 * (`POST /control` at URL's origin) of a peer that has one. Each answer is printed as one short
 * line (task id, state, ...), every value through `printable`.
 *
 * A resume token is a capability: whoever holds it can resume the task. The client prints it only
 * with `--show-token` (the user has to pass it back to `resume`); otherwise it says it hid one.
 * Exit codes: 0 answered, 1 the peer refused the call (its error printed), 2 usage error or an
 * answer that is not A2A, 3 the peer could not be reached.
 */
import type { Command } from 'commander';
import { type JsonValue, A2aReplayError, describeError, randomIdSource, printable } from '../../src/public/core.js';
import {
  type Message,
  PAUSE_MODES,
  type PauseMode,
  type PauseTaskParams,
  type ResumeTaskParams,
  type Task,
  type TaskPause,
  type SendMessageParams,
} from '../../src/public/protocol.js';
import { type PeerAnswer, type PeerCall, callPeer } from '../../src/public/peer.js';
import { CliExit, EXIT } from '../io.js';
import { integerOption } from '../options.js';

const ACTIONS = ['send', 'get', 'pause', 'resume', 'advance', 'fire'] as const;
type Action = (typeof ACTIONS)[number];

interface ClientOptions {
  binding: string;
  reason?: string;
  mode: string;
  token?: string;
  input?: string;
  context?: string;
  task?: string;
  wait?: boolean;
  showToken?: boolean;
  header?: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usage(message: string): CliExit {
  return new CliExit(EXIT.usage, message);
}

function one(args: string[], action: Action, what: string): string {
  if (args.length !== 1 || args[0] === '')
    throw usage(`client ${action}: expected one ${what}; got ${args.length === 0 ? 'none' : args.length}`);
  return args[0] as string;
}

function parseInput(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw usage(`--input: not JSON (${describeError(error)})`);
  }
}

function callOf(action: Action, args: string[], options: ClientOptions): PeerCall {
  switch (action) {
    case 'send': {
      const message: Message = {
        messageId: randomIdSource.next('msg'),
        role: 'ROLE_USER',
        parts: [{ text: one(args, action, 'TEXT') }],
        ...(options.context === undefined ? {} : { contextId: options.context }),
        ...(options.task === undefined ? {} : { taskId: options.task }),
      };
      const params: SendMessageParams = {
        message,
        configuration: { returnImmediately: options.wait !== true },
      };
      return { method: 'SendMessage', params: { ...params }, control: false };
    }
    case 'get':
      return { method: 'GetTask', params: { id: one(args, action, 'TASK id') }, control: false };
    case 'pause': {
      const mode = PAUSE_MODES.find((m) => m === options.mode);
      if (mode === undefined)
        throw usage(`--mode: expected one of ${PAUSE_MODES.join(', ')}; got ${JSON.stringify(options.mode)}`);
      const params: PauseTaskParams = {
        taskId: one(args, action, 'TASK id'),
        mode: mode satisfies PauseMode,
        ...(options.reason === undefined ? {} : { reason: options.reason }),
      };
      return { method: 'PauseTask', params: { ...params }, control: false };
    }
    case 'resume': {
      if (options.token === undefined) throw usage('client resume: --token is required (the pause printed it)');
      const params: ResumeTaskParams = {
        taskId: one(args, action, 'TASK id'),
        resumeToken: options.token,
        continueTranscript: true,
        ...(options.input === undefined ? {} : { input: parseInput(options.input) }),
      };
      return { method: 'ResumeTask', params: { ...params }, control: false };
    }
    case 'advance':
      return {
        method: 'AdvanceClock',
        params: { ms: integerOption(one(args, action, 'MS'), 'advance MS', 0) },
        control: true,
      };
    case 'fire':
      return {
        method: 'FireEvent',
        params: {
          name: one(args, action, 'EVENT'),
          ...(options.task === undefined ? {} : { payload: { taskId: options.task } }),
        },
        control: true,
      };
    default: {
      const never: never = action;
      return never;
    }
  }
}

function headersOf(options: ClientOptions): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  for (const h of options.header ?? []) {
    const at = h.indexOf(':');
    if (at <= 0) throw usage(`--header: expected NAME:VALUE; got a value without a name`);
    headers[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
  }
  return headers;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '-';
}

function tokenText(pause: Pick<TaskPause, 'resumeToken'>, show: boolean): string {
  if (typeof pause.resumeToken !== 'string' || pause.resumeToken === '') return '';
  return show ? ` token ${pause.resumeToken}` : ' token hidden (--show-token prints it)';
}

function pauseText(pause: unknown, show: boolean): string {
  if (!isRecord(pause)) return '';
  const p = pause as unknown as TaskPause;
  const reason = typeof p.reason === 'string' ? ` reason ${JSON.stringify(p.reason)}` : '';
  const until = typeof p.pausedUntil === 'string' ? ` until ${p.pausedUntil}` : '';
  return ` by ${str(p.initiatedBy)}${reason}${until}${tokenText(p, show)}`;
}

function taskLine(task: unknown, show: boolean): string {
  if (!isRecord(task)) return 'task -';
  const t = task as unknown as Task;
  const status = isRecord(t.status) ? t.status : undefined;
  const artifacts = Array.isArray(t.artifacts) ? ` artifacts ${t.artifacts.length}` : '';
  return (
    `task ${str(t.id)} ${str(status?.state)} context ${str(t.contextId)}${artifacts}` + pauseText(status?.pause, show)
  );
}

/** One short line for a result (docs/design.md §9: every value through `printable`). */
function describeResult(call: PeerCall, result: unknown, show: boolean): string {
  const r = isRecord(result) ? result : {};
  switch (call.method) {
    case 'SendMessage':
      if (isRecord(r.message)) return `message ${str(r.message.messageId)}`;
      return taskLine(r.task, show);
    case 'GetTask':
      return taskLine(r, show);
    case 'PauseTask':
      return `task ${str(r.taskId)} ${str(r.state)}${pauseText(r.pause, show)}`;
    case 'ResumeTask':
      return `task ${str(r.taskId)} ${str(r.state)} cause ${str(r.cause)} at ${str(r.resumedAt)}`;
    case 'AdvanceClock':
      return `clock ${str(r.now)}`;
    case 'FireEvent':
      return `resumed ${Array.isArray(r.resumed) ? r.resumed.map(str).join(', ') || 'none' : '-'}`;
    default:
      return JSON.stringify(result);
  }
}

export function registerClient(program: Command): void {
  program
    .command('client')
    .description(
      "send, get, pause and resume tasks on a peer or through the recorder; advance a deterministic peer's clock",
    )
    .argument(
      '<url>',
      'the JSON-RPC endpoint (the peer or recorder address), or the HTTP+JSON interface with --binding rest',
    )
    .argument('<action>', `one of ${ACTIONS.join(', ')}`)
    .argument('[args...]', 'send TEXT | get TASK | pause TASK | resume TASK | advance MS | fire EVENT')
    .option('--binding <binding>', 'jsonrpc | rest (HTTP+JSON)', 'jsonrpc')
    .option('--reason <text>', 'pause: the reason given to the peer')
    .option('--mode <mode>', `pause: ${PAUSE_MODES.join(' | ')}`, 'finish_step')
    .option('--token <token>', 'resume: the resume token the pause answered with')
    .option('--input <json>', 'resume: input handed to the task, as JSON')
    .option('--context <id>', 'send: continue this context')
    .option('--task <id>', 'send: continue this task; fire: the task an external event names')
    .option('--wait', 'send: block until the task is done or interrupted (a deterministic peer only moves on advance)')
    .option('--show-token', 'print resume tokens (a token lets whoever holds it resume the task)')
    .option('--header <name:value...>', 'extra request headers (e.g. "authorization: Bearer ...")')
    .action(async (url: string, actionName: string, args: string[], options: ClientOptions) => {
      const action = ACTIONS.find((a) => a === actionName);
      if (action === undefined)
        throw usage(`client: unknown action ${JSON.stringify(actionName)}; expected one of ${ACTIONS.join(', ')}`);
      if (options.binding !== 'jsonrpc' && options.binding !== 'rest')
        throw usage(`--binding: expected jsonrpc or rest; got ${JSON.stringify(options.binding)}`);
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw usage(`client: ${JSON.stringify(url)} is not a URL`);
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw usage(`client: ${JSON.stringify(url)} is not an http(s) URL`);
      const call = callOf(action, args, options);
      const headers = headersOf(options);
      let answer: PeerAnswer;
      try {
        answer = await callPeer(target, call, { binding: options.binding, headers });
      } catch (error) {
        // An unreachable peer exits 3; an answer that is not A2A, or a call without a route, 2.
        if (error instanceof A2aReplayError && error.code === 'PEER_UNREACHABLE')
          throw new CliExit(EXIT.infrastructure, error.message);
        if (error instanceof A2aReplayError) throw usage(error.message);
        throw error;
      }
      if (!answer.ok) {
        const code = answer.code === undefined ? '' : ` ${answer.code}`;
        const reason = answer.reason === undefined ? '' : ` ${answer.reason}`;
        throw new CliExit(EXIT.drift, `${call.method} refused:${code}${reason}: ${answer.message}`);
      }
      process.stdout.write(`${printable(describeResult(call, answer.result, options.showToken === true))}\n`);
    });
}
