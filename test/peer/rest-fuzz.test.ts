/**
 * Property-based fuzzing of the reference peer's HTTP+JSON binding over real sockets: requests on
 * every route (and on none), with any verb, task ids that exist, do not or are not ids at all, an
 * optional tenant segment, odd query values, bodies that are valid, mutated, not JSON or not
 * objects, with and without `A2A-Version` and `Content-Type`.
 *
 * Properties, for every run: every answer is an HTTP answer with a JSON body in the A2A error
 * model or a result (an event stream for the streaming routes), never a 500 or an internal error
 * in the peer's log; and afterwards the peer still serves: each task the run created answers
 * GetTask over both bindings with a valid state. Inputs come from a fixed seed.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { startPeer } from '../../src/peer/start-peer.js';
import { isTerminal } from '../../src/protocol/state-machine.js';
import { TASK_STATES, type TaskState } from '../../src/protocol/types.js';
import { fuzzRuns } from '../helpers/fuzz.js';

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** One request; a stream's head is enough (its events may wait for the virtual clock). */
function send(url: string, verb: string, path: string, body: string | undefined, headers: Record<string, string>) {
  return new Promise<Answer>((resolve, reject) => {
    // A connection per request: the peer closes some after answering (a refused body), and a reused one would race it.
    // Content-Length given: without it Node sends a GET's or DELETE's body unframed, which is not HTTP.
    const framed = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = request(`${url}${path}`, { method: verb, headers: framed, agent: false }, (res) => {
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, type, body: '' });
        res.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function rpc(url: string, method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const answer = await send(url, 'POST', '/', JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'A2A-Version': '1.0',
    'Content-Type': 'application/json',
  });
  return JSON.parse(answer.body) as { result?: unknown; error?: unknown };
}

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constant('TASK') },
  { weight: 1, arbitrary: fc.constantFrom('task-nope', 'x'.repeat(300), '%ZZ', '%F0%9F', 'a:b', '..', '%2F') },
);
const tail = fc.oneof(
  fc.constantFrom('/message:send', '/message:stream', '/tasks', '/card', '/extendedAgentCard', '/', '', '/nope'),
  fc
    .tuple(
      segment,
      fc.constantFrom(
        '',
        ':cancel',
        ':subscribe',
        ':pause',
        ':resume',
        ':awaitResumption',
        ':nope',
        '/pushNotificationConfigs',
        '/pushNotificationConfigs/c1',
      ),
    )
    .map(([id, rest]) => `/tasks/${id}${rest}`),
);
const query = fc.constantFrom(
  '',
  '?historyLength=2',
  '?historyLength=-1',
  '?historyLength=abc',
  '?pageSize=0',
  '?pageSize=101',
  '?status=TASK_STATE_WORKING',
  '?status=nope',
  '?pageToken=%00',
  '?a=1&a=2',
);
const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e308, -1, 2 ** 53 + 2, '', null, true, [], {}, '\ud800'),
);
const validBody = fc.oneof(
  fc.constantFrom('work:1', 'await:go', 'await:ev:1', 'fail', 'input').map((text) => ({
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text }] },
    configuration: { returnImmediately: true },
  })),
  fc.constantFrom('finish_step', 'interrupt', 'nope').map((mode) => ({ reason: 'fuzz', mode })),
  fc.constant({ resumeToken: 'TOKEN', input: { ok: true } }),
  fc.constant({ pausedUntil: '2026-01-01T00:05:00Z', reason: 'later' }),
);
const body = fc.oneof(
  { weight: 3, arbitrary: validBody.map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        validBody,
        fc.constantFrom('message', 'reason', 'mode', 'resumeToken', 'configuration', 'pausedUntil'),
        weird,
      )
      .map(([v, key, value]) => JSON.stringify({ ...v, [key]: value })),
  },
  { weight: 1, arbitrary: weird.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.constantFrom('{', 'not json', '\u0000', '[1,2', '') },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const step = fc.record({
  verb: fc.constantFrom('GET', 'POST', 'POST', 'DELETE', 'PUT'),
  tenant: fc.constantFrom('', '', '/tenant-a'),
  tail,
  query,
  body,
  version: fc.constantFrom('1.0', '1.0', '', '0.3', '9'),
  json: fc.boolean(),
});

it('answers every HTTP+JSON request in the error model or with a result, and keeps serving', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
      const failures: string[] = [];
      const peer = await startPeer({
        deterministic: true,
        maxTasks: 8,
        log: (line) => {
          if (/failed|stopped/.test(line)) failures.push(line);
        },
      });
      const rest = peer.restUrl.slice(peer.url.length);
      const problems: string[] = [];
      const base = { 'A2A-Version': '1.0', 'Content-Type': 'application/json' };
      try {
        const created = await send(
          peer.url,
          'POST',
          `${rest}/message:send`,
          JSON.stringify({
            message: { messageId: 'seed', role: 'ROLE_USER', parts: [{ text: 'work:2' }] },
            configuration: { returnImmediately: true },
          }),
          base,
        );
        expect(created.status).toBe(200);
        const taskId = (JSON.parse(created.body) as { task: { id: string } }).task.id;
        // Requests go out one after the other without waiting for their answers: a blocking send
        // answers once its task ends, which the clean-up below makes happen.
        const answers: Promise<void>[] = [];
        for (const [i, s] of steps.entries()) {
          const path = `${rest}${s.tenant}${s.tail.replace('TASK', taskId)}${s.query}`;
          const headers: Record<string, string> = {};
          if (s.version !== '') headers['A2A-Version'] = s.version;
          if (s.json) headers['Content-Type'] = 'application/json';
          const what = `step ${i + 1}: ${s.verb} ${path} ${s.body ?? ''}`.slice(0, 400);
          const checked = send(peer.url, s.verb, path, s.body?.replace('TOKEN', 'tok'), headers).then((answer) => {
            if (answer.status === 500 || answer.status < 200) problems.push(`${what}: HTTP ${answer.status}`);
            if (answer.type.startsWith('text/event-stream')) {
              if (answer.status !== 200) problems.push(`${what}: a stream with HTTP ${answer.status}`);
              return;
            }
            if (!answer.type.startsWith('application/json')) problems.push(`${what}: content-type ${answer.type}`);
            const parsed = JSON.parse(answer.body) as {
              error?: { code?: unknown; status?: unknown; message?: unknown };
            };
            if (answer.status >= 400) {
              const e = parsed.error;
              if (e?.code !== answer.status || typeof e.status !== 'string' || typeof e.message !== 'string')
                problems.push(`${what}: not the error model: ${answer.body.slice(0, 200)}`);
            }
          });
          answers.push(checked.catch((error: unknown) => void problems.push(`${what}: ${String(error)}`)));
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Cancel every task still going until every request is answered; past the rounds, one hangs.
        let answered = false;
        const all = Promise.all(answers).then(() => (answered = true));
        for (let round = 0; round < 200 && !answered; round++) {
          const listed = await rpc(peer.url, 'ListTasks', { pageSize: 100 });
          for (const t of (listed.result as { tasks: { id: string; status: { state: TaskState } }[] }).tasks) {
            if (!isTerminal(t.status.state)) await rpc(peer.url, 'CancelTask', { id: t.id });
          }
          await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 25))]);
        }
        expect(answered, 'every request answered (no hang)').toBe(true);
        expect(problems).toEqual([]);
        expect(failures).toEqual([]);
        const overRest = await send(peer.url, 'GET', `${rest}/tasks/${taskId}`, undefined, base);
        expect(overRest.status).toBe(200);
        expect(TASK_STATES).toContain((JSON.parse(overRest.body) as { status: { state: string } }).status.state);
        const overRpc = await rpc(peer.url, 'GetTask', { id: taskId });
        expect((overRpc.result as { id: string }).id).toBe(taskId);
      } finally {
        await peer.close();
      }
    }),
    { numRuns: fuzzRuns(25), seed: 20261203, endOnFailure: true },
  );
}, 240_000);
