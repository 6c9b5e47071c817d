/**
 * The recorder cannot be talked past (docs/design.md §5, §15): over real sockets, the real
 * recording proxy in front of the real reference peer (deterministic), generated pause and resume
 * requests — targets with dot segments (plain and percent-encoded), escapes, encoded and raw
 * separators, fragments, queries, tenants and case variants of the method suffix; bodies with
 * extra members (`jsonrpc`, `method`, `params`, the task id), duplicate keys and both bindings.
 * For every request, the peer's own state says whether it was carried out; a pause carried out
 * has its suspension receipt with the caller's principal, `via: PauseTask` and the binding its
 * route names, a resume carried out its resumption; nothing else yields either.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RecordingProxy, startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { principalOf } from '../../src/recording/principal.js';
import { RedactionMarks } from '../../src/recording/redaction-mark.js';
import { Redactor } from '../../src/recording/redaction.js';
import { sendTarget } from '../helpers/raw-http.js';
import { ok } from '../replay/session.js';
import { TEST_MARK_KEY, memoryRecorder } from './harness.js';
import { fuzzRuns } from '../helpers/fuzz.js';

let peer: RunningPeer;
let proxy: RecordingProxy;
let rec: ReturnType<typeof memoryRecorder>;

beforeAll(async () => {
  peer = await startPeer({ deterministic: true });
  rec = memoryRecorder(peer.url);
  proxy = await startRecordingProxy({ upstream: peer.url, recorder: rec.recorder });
});

afterAll(async () => {
  await proxy.close({ graceMs: 0 });
  await peer.close();
});

/** `plain` most of the time, else one of `odd`: most calls hold one oddity or none. */
const mostly = (plain: string, ...odd: string[]): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: fc.constant(plain), weight: 5 }, { arbitrary: fc.constantFrom(...odd), weight: 1 });

/** How a path separator, a segment or the whole target may be spelled. */
const separator = mostly('/', '//', '\\', '%2F', '%5c');
const dotSegment = mostly('', 'zz/../', './', '%2e/', 'zz/%2E%2e/', 'zz/.%2e/', '../');
const spelled = (text: string): fc.Arbitrary<string> =>
  mostly(
    text,
    text.replace(/t/, '%74'),
    text.replace(/[ae]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
    text.toUpperCase(),
    text.charAt(0).toUpperCase() + text.slice(1),
  );
const ending = mostly('', '?A2A-Version=1.0', '?x=../y', '#x', '#', '?q#f');

/** A target for an HTTP+JSON call of `verb` (`pause`, `resume`) on task `id`. */
function restTarget(id: string, verb: string): fc.Arbitrary<string> {
  return fc
    .record({
      tenant: mostly('', 'acme/', '%61cme/'),
      before: dotSegment,
      tasks: spelled('tasks'),
      sep: separator,
      after: dotSegment,
      colon: mostly(':', '%3A', '%3a'),
      suffix: spelled(verb),
      ending,
    })
    .map((t) => `/rest/${t.tenant}${t.before}${t.tasks}${t.sep}${t.after}${id}${t.colon}${t.suffix}${t.ending}`);
}

/** A target for a JSON-RPC call. */
const rpcTarget = mostly('/', '/./', '/%2e/', '/x/../', '/#x', '/?q', '//', '\\', '/%2F');

/** Extra members a body may carry, as `[name, JSON text]`; a name may repeat a real member. */
function extras(id: string, real: string): fc.Arbitrary<[string, string][]> {
  const member = fc.constantFrom<[string, string]>(
    ['jsonrpc', '"2.0"'],
    ['method', '"GetTask"'],
    ['params', '{}'],
    ['id', '7'],
    ['taskId', JSON.stringify(id)],
    ['taskId', '"task-other"'],
    [real, '"dup"'],
    ['metadata', '{"k":"v"}'],
  );
  return fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 2 },
    { arbitrary: fc.array(member, { maxLength: 3 }), weight: 1 },
  );
}

/** A JSON object written from members in order, duplicates kept as written. */
const object = (members: [string, string][]): string =>
  `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

interface Call {
  target: string;
  body: string;
  /** The binding the route names, for the receipt. */
  binding: 'JSONRPC' | 'HTTP+JSON';
}

/** A PauseTask (or a resume, with `token`) on `id` in either binding, spelled every way. */
function callOf(id: string, token: string | undefined): fc.Arbitrary<Call> {
  const name = token === undefined ? 'PauseTask' : 'ResumeTask';
  const own: [string, string] =
    token === undefined ? ['reason', '"generated"'] : ['resumeToken', JSON.stringify(token)];
  const rest = fc
    .record({ target: restTarget(id, token === undefined ? 'pause' : 'resume'), more: extras(id, own[0]) })
    .map(({ target, more }): Call => ({ target, body: object([own, ...more]), binding: 'HTTP+JSON' }));
  const rpc = fc
    .record({
      target: rpcTarget,
      method: mostly(name, name.toLowerCase(), name.toUpperCase()),
      more: extras(id, own[0]),
      envelope: fc.array(fc.constantFrom<[string, string]>(['extra', '1'], ['jsonrpc', '"2.0"']), { maxLength: 1 }),
    })
    .map(({ target, method, more, envelope }): Call => {
      const params = object([['taskId', JSON.stringify(id)], own, ...more]);
      const body = object([
        ['jsonrpc', '"2.0"'],
        ['id', '1'],
        ['method', JSON.stringify(method)],
        ['params', params],
        ...envelope,
      ]);
      return { target, body, binding: 'JSONRPC' };
    });
  return fc.oneof({ arbitrary: rest, weight: 2 }, { arbitrary: rpc, weight: 1 });
}

async function peerState(id: string): Promise<string> {
  return (await ok<{ status: { state: string } }>(peer.url, 'GetTask', { id })).status.state;
}

/** What the recording so far proves, read by a fresh observer as `record` reads it. */
async function observed(): Promise<ObserverOutput[]> {
  const entries = await rec.settled();
  const observer = new PauseObserver({ recordingId: 'rec-target-property' });
  return entries.flatMap((e) => observer.observe(e));
}

function tokenOf(answer: string): string | undefined {
  try {
    const body = JSON.parse(answer) as {
      result?: { pause?: { resumeToken?: string } };
      pause?: { resumeToken?: string };
    };
    return (body.result ?? body).pause?.resumeToken;
  } catch {
    return undefined;
  }
}

/** Stand-ins in generated calls for the live task id and resume token, filled in when sent. */
const ID = 'ID-OF-TASK';
const TOKEN = 'RESUME-TOKEN';

const filled = (call: Call, id: string, token = ''): Call => ({
  ...call,
  target: call.target.replaceAll(ID, id),
  body: call.body.replaceAll(ID, id).replaceAll(TOKEN, token),
});

it('gives every pause and resume the peer carries out its receipt, and nothing else one', async () => {
  let run = 0;
  const seen = { paused: 0, notPaused: 0, resumed: 0 };
  await fc.assert(
    fc.asyncProperty(callOf(ID, undefined), callOf(ID, TOKEN), async (pauseCall, resumeCall) => {
      run += 1;
      const authorization = `Bearer caller-${run}`;
      // Named as the recorder names it: keyed under its mark key.
      const principal = principalOf({ authorization }, undefined, new Redactor(new RedactionMarks(TEST_MARK_KEY)));
      const { task } = await ok<{ task: { id: string } }>(proxy.url, 'SendMessage', {
        message: { messageId: `m-${run}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
        configuration: { returnImmediately: true },
      });
      await ok(proxy.url, 'AdvanceClock', { ms: 1000 }, '/control');
      const pause = filled(pauseCall, task.id);
      const paused = await sendTarget(proxy.url, 'POST', pause.target, pause.body, { authorization });
      const afterPause = await peerState(task.id);
      const suspensions = (await observed()).flatMap((o) =>
        o.type === 'suspension' && o.draft.taskId === task.id ? [o.draft] : [],
      );
      const what = `${pause.target} ${pause.body} → ${paused.status} ${afterPause}`;
      if (afterPause !== 'TASK_STATE_PAUSED') {
        seen.notPaused += 1;
        expect(suspensions, what).toEqual([]);
        return;
      }
      seen.paused += 1;
      expect(suspensions, what).toMatchObject([{ via: 'PauseTask', principal, binding: pause.binding }]);

      const token = tokenOf(paused.body);
      expect(token, what).toBeDefined();
      const resume = filled(resumeCall, task.id, token);
      const resumed = await sendTarget(proxy.url, 'POST', resume.target, resume.body, { authorization });
      const afterResume = await peerState(task.id);
      const resumptions = (await observed()).flatMap((o) =>
        o.type === 'resumption' && o.draft.taskId === task.id && o.draft.outcome === 'resumed' ? [o.draft] : [],
      );
      const how = `${resume.target} ${resume.body} → ${resumed.status} ${afterResume}`;
      if (afterResume === 'TASK_STATE_PAUSED') {
        expect(resumptions, how).toEqual([]);
      } else {
        seen.resumed += 1;
        expect(resumptions, how).toMatchObject([{ principal, binding: resume.binding }]);
      }
    }),
    { numRuns: fuzzRuns(50), seed: 20261206 },
  );
  // The generators reach both sides of the property.
  expect(seen.paused).toBeGreaterThan(3);
  expect(seen.notPaused).toBeGreaterThan(3);
  expect(seen.resumed).toBeGreaterThan(0);
});
