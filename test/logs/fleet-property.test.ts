/**
 * A fleet pairs by the identity the peer gave, whatever the traffic (docs/design.md §17). Two real
 * keyed recorders (`startRecorder`, what `record --key` runs) as replicas in front of the reference
 * peer (deterministic, its transitions log the ground truth), in this process over real sockets;
 * each run creates tasks and spreads random pauses, self-parks with timeouts, resumes with the
 * token, FireEvents, streams and clock moves over replica A, replica B and the peer directly, then
 * cancels its tasks. The two logs' receipts of the run's tasks go to one `FleetLedger`, and its
 * verdict is held to the peer's transitions:
 * - a paired end is the end the peer gave that pause (its token, its instant, its cause);
 * - a lost pause is one whose end no receipt of either log shows;
 * - an orphan is never the resumption of a pause a log holds;
 * - an ambiguous resumption lists the pause it ended among its candidates when a log holds it.
 * The clock moves one second after every step, so each step's transitions have an instant of
 * their own, which ties a receipt's `resumedAt` to the step that caused it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, type TestStream } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { sealLine } from '../../src/receipts/chain.js';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { canonicalTimeText } from '../../src/protocol/time-text.js';
import { FleetLedger, type FleetVerdict } from '../../src/receipts/fleet.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { readLogChunks } from '../../src/receipts/log-reader.js';
import { readReceiptLogLine } from '../../src/receipts/read-line.js';
import type { ReceiptLogLine, ResumptionReceipt, SuspensionReceipt } from '../../src/receipts/types.js';
import { fuzzRuns } from '../helpers/fuzz.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';

type Via = 'a' | 'b' | 'direct';
type Step =
  | { kind: 'pause'; task: number; via: Via }
  | { kind: 'park'; task: number; via: Via; minutes: number }
  | { kind: 'resume'; task: number; via: Via }
  | { kind: 'fire'; task: number; via: Via; named: boolean }
  | { kind: 'watch'; task: number; via: 'a' | 'b' }
  | { kind: 'poll'; task: number; via: 'a' | 'b' }
  | { kind: 'advance'; minutes: number };

interface Scenario {
  tasks: Array<{ via: Via; script: string }>;
  steps: Step[];
}

const via = fc.constantFrom<Via>('a', 'b', 'direct');
const task = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pause' as const), task, via }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('park' as const), task, via, minutes: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('resume' as const), task, via }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fire' as const), task, via, named: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('watch' as const), task, via: fc.constantFrom<'a' | 'b'>('a', 'b') }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('poll' as const), task, via: fc.constantFrom<'a' | 'b'>('a', 'b') }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 3 }) }),
  },
);
const scenario: fc.Arbitrary<Scenario> = fc.record({
  tasks: fc.array(
    fc.record({
      via,
      script: fc.constantFrom('work:500', 'await:go:2:resume work:500', 'await:go:1:fail work:500'),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  steps: fc.array(step, { minLength: 3, maxLength: 10 }),
});

let dir = '';
let peer: RunningPeer;
let transitions = '';
const replicas: Record<'a' | 'b', { recorder: Recorder; receipts: string }> = {} as never;
let clients: Record<Via, A2aTestClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-property-'));
  transitions = join(dir, 'peer.transitions.jsonl');
  peer = await startPeer({ deterministic: true, transitionsFile: transitions });
  for (const name of ['a', 'b'] as const) {
    const key = join(dir, `${name}.key.json`);
    await writeFile(key, canonicalJson(generateReceiptKey({ kid: `replica-${name}` }).keyFile()), { mode: 0o600 });
    const recording = join(dir, `${name}.jsonl`);
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key, warn: () => undefined });
    replicas[name] = { recorder, receipts: recording.replace(/\.jsonl$/, '.receipts.jsonl') };
  }
  clients = {
    a: new A2aTestClient(replicas.a.recorder.url, 'alice'),
    b: new A2aTestClient(replicas.b.recorder.url, 'bob'),
    direct: new A2aTestClient(peer.url, 'carol'),
  };
});

afterAll(async () => {
  for (const client of Object.values(clients ?? {})) client.close();
  for (const r of Object.values(replicas)) await r.recorder.close();
  await peer?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Plays one scenario; returns its task ids. */
async function play(s: Scenario): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, t] of s.tasks.entries()) {
    const { task: created } = await clients[t.via].ok<{ task: { id: string } }>('SendMessage', {
      message: { role: 'ROLE_USER', messageId: `m${i}`, parts: [{ text: t.script }] },
      configuration: { returnImmediately: true },
    });
    ids.push(created.id);
  }
  const watching: TestStream[] = [];
  const watched = new Set<string>();
  const taskOf = (n: number): string => ids[n % ids.length]!;
  for (const st of s.steps) {
    switch (st.kind) {
      case 'pause':
        await clients[st.via].call('PauseTask', { taskId: taskOf(st.task), mode: 'interrupt_immediate' });
        break;
      case 'park': {
        // A self-park waits for the work step in flight to end: the clock moves it there (§3).
        const parked = clients[st.via].call('AwaitTaskResumption', {
          taskId: taskOf(st.task),
          reason: 'waiting',
          conditions: { onEvent: 'go', timeout: { durationMinutes: st.minutes, onTimeout: 'resume' } },
        });
        await clients.direct.control('AdvanceClock', { ms: 1000 });
        await parked;
        break;
      }
      case 'resume': {
        const shown = await clients.direct.ok<{ status: { pause?: { resumeToken?: string } } }>('GetTask', {
          id: taskOf(st.task),
        });
        const token = shown.status.pause?.resumeToken;
        if (token !== undefined)
          await clients[st.via].call('ResumeTask', { taskId: taskOf(st.task), resumeToken: token });
        break;
      }
      case 'fire':
        await clients[st.via].call(
          'FireEvent',
          { name: st.named ? 'nothing' : 'go', payload: st.named ? { taskId: taskOf(st.task) } : {} },
          '/control',
        );
        break;
      case 'watch': {
        const key = `${st.via}\n${taskOf(st.task)}`;
        if (watched.has(key)) break;
        watched.add(key);
        const stream = clients[st.via].stream('SubscribeToTask', { id: taskOf(st.task) });
        watching.push(stream);
        // Subscribed once the stream's first event (the task as it stands) has come.
        await Promise.race([stream.next(() => true), stream.done]);
        break;
      }
      case 'poll':
        await clients[st.via].ok('GetTask', { id: taskOf(st.task) });
        break;
      case 'advance':
        await clients.direct.control('AdvanceClock', { ms: st.minutes * 60_000 });
        break;
    }
    await clients.direct.control('AdvanceClock', { ms: 1000 });
  }
  // Every task ends, so every stream ends and each replica has written what it saw of it.
  for (const id of ids) await clients.direct.call('CancelTask', { id });
  await Promise.all(watching.map((w) => w.done.catch(() => undefined)));
  return ids;
}

type Transition = {
  event: string;
  at: string;
  taskId: string;
  from: string | null;
  to: string;
  cause: string;
  resumeTokenHash: string | null;
};

/** The peer's transitions of `tasks`: each pause by its token hash, with the end the peer gave it. */
async function truthOf(tasks: ReadonlySet<string>): Promise<Map<string, { end: Transition | null }>> {
  const pauses = new Map<string, { end: Transition | null }>();
  const lines = (await readFile(transitions, 'utf8')).split('\n').filter(Boolean).slice(1);
  for (const text of lines) {
    const t = JSON.parse(text) as Transition;
    if (t.event !== 'transition' || !tasks.has(t.taskId) || t.resumeTokenHash === null) continue;
    if (t.to === 'TASK_STATE_PAUSED') pauses.set(t.resumeTokenHash, { end: null });
    else if (t.from === 'TASK_STATE_PAUSED') pauses.get(t.resumeTokenHash)!.end = t;
  }
  return pauses;
}

type Receipt = SuspensionReceipt | ResumptionReceipt;

/** The receipts of `tasks` in the replica's log so far, with their line numbers. */
async function receiptsOf(file: string, tasks: ReadonlySet<string>): Promise<Array<[Receipt, number]>> {
  const out: Array<[Receipt, number]> = [];
  for await (const chunk of readLogChunks(file))
    for (const raw of chunk) {
      if (raw.text === null || !raw.complete) continue;
      const read = readReceiptLogLine(JSON.parse(raw.text) as unknown);
      const line: ReceiptLogLine | null = read.ok ? read.value : null;
      if (line?.type !== 'SuspensionReceipt' && line?.type !== 'ResumptionReceipt') continue;
      if (tasks.has(line.taskId)) out.push([line, raw.number]);
    }
  return out;
}

const instant = (at: string | null): string | null => (at === null ? null : (canonicalTimeText(at) ?? at));

/** What in `verdict` the peer's transitions contradict; empty when nothing. */
function contradictions(
  verdict: FleetVerdict,
  truth: Map<string, { end: Transition | null }>,
  logs: ReadonlyArray<[Receipt, number]>,
): string[] {
  const found: string[] = [];
  const held = new Set(logs.flatMap(([r]) => (r.type === 'SuspensionReceipt' ? [r.resumeTokenHash] : [])));
  // The end of the peer's a resumption at `resumedAt` of `taskId` shows (each step has its instant).
  const endAt = (taskId: string, resumedAt: string | null, cause: string): [string, Transition] | undefined =>
    [...truth.entries()].flatMap(([hash, { end }]) =>
      end !== null && end.taskId === taskId && end.cause === cause && instant(end.at) === instant(resumedAt)
        ? [[hash, end] as [string, Transition]]
        : [],
    )[0];
  const trueHashOf = (e: {
    taskId: string;
    resumedAt: string | null;
    cause: string;
    resumeTokenHash: string | null;
  }): string | undefined =>
    e.resumeTokenHash ?? (e.resumedAt === null ? undefined : endAt(e.taskId, e.resumedAt, e.cause)?.[0]);
  // A receipt stating the cause the peer gave states the instant it gave (what a log says of the
  // ends it saw without the peer saying how is the observer's reading, test/observe).
  const agrees = (e: { cause: string; resumedAt: string | null }, real: Transition): boolean =>
    e.cause !== real.cause || e.resumedAt === null || instant(e.resumedAt) === instant(real.at);
  // Each log's own resumptions end a pause the peer ended.
  const hashes = new Map(
    logs.flatMap(([r]) => (r.type === 'SuspensionReceipt' ? [[sealLine(r).hash, r] as const] : [])),
  );
  for (const [r, number] of logs) {
    if (r.type !== 'ResumptionReceipt' || r.suspension === null || r.outcome === 'rejected') continue;
    const real = truth.get(hashes.get(r.suspension)?.resumeTokenHash ?? '')?.end;
    if (!real || !agrees(r, real))
      found.push(
        `line ${number} ends the pause of task ${r.taskId} by ${r.cause} at ${r.resumedAt}; the peer ended it ` +
          `${real ? `${real.cause} at ${real.at}` : 'never'}`,
      );
  }
  for (const { pause, end } of verdict.paired) {
    const real = truth.get(pause.resumeTokenHash ?? '')?.end;
    if (!real || !agrees(end, real))
      found.push(
        `paired ${pause.begun.file}:${pause.begun.line} (task ${pause.taskId}) with ${end.ended.file}:` +
          `${end.ended.line} (${end.cause} at ${end.resumedAt}); the peer ended it ` +
          `${real ? `${real.cause} at ${real.at}` : 'never'}`,
      );
  }
  for (const pause of verdict.lost) {
    const real = truth.get(pause.resumeTokenHash ?? '')?.end ?? null;
    const seen = logs.some(
      ([r]) =>
        r.type === 'ResumptionReceipt' &&
        r.outcome !== 'rejected' &&
        real !== null &&
        r.taskId === pause.taskId &&
        (r.outside?.resumeTokenHash === pause.resumeTokenHash ||
          (r.cause === real.cause && instant(r.resumedAt) === instant(real.at))),
    );
    if (seen) found.push(`lost ${pause.begun.file}:${pause.begun.line}, whose end a receipt shows`);
  }
  for (const end of verdict.orphans) {
    const hash = trueHashOf(end);
    const real = hash === undefined ? undefined : truth.get(hash)?.end;
    // A second end of one pause at another time is an orphan by right; the pause the peer ended is not.
    if (hash !== undefined && held.has(hash) && real && instant(real.at) === instant(end.resumedAt))
      found.push(`orphan ${end.ended.file}:${end.ended.line}, the end of a pause a log holds`);
  }
  for (const { end, candidates } of verdict.ambiguous) {
    const hash = trueHashOf(end);
    if (hash !== undefined && held.has(hash) && !candidates.some((c) => c.resumeTokenHash === hash))
      found.push(`ambiguous ${end.ended.file}:${end.ended.line} leaves out the pause it ended`);
  }
  return found;
}

describe('a fleet of two replicas and direct calls, random traffic', () => {
  it('pairs every receipt with the pause the peer ended, reporting what it cannot tell', async () => {
    const counts = { paired: 0, lost: 0, orphans: 0, ambiguous: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const tasks = new Set(await play(s));
        const truth = await truthOf(tasks);
        const ledger = new FleetLedger();
        const all: Array<[Receipt, number]> = [];
        for (const name of ['a', 'b'] as const) {
          const file = replicas[name].receipts;
          ledger.startLog(`${name}.receipts.jsonl`);
          for (const [line, number] of await receiptsOf(file, tasks)) {
            ledger.add(line, number);
            all.push([line, number]);
          }
        }
        const verdict = ledger.finish();
        counts.paired += verdict.paired.length;
        counts.lost += verdict.lost.length;
        counts.orphans += verdict.orphans.length;
        counts.ambiguous += verdict.ambiguous.length;
        expect(contradictions(verdict, truth, all)).toEqual([]);
      }),
      { numRuns: fuzzRuns(25), seed: 47_2026, endOnFailure: true },
    );
    // The runs did pair across the logs and reported what they could not tell.
    expect(counts.paired).toBeGreaterThan(0);
    expect(counts.ambiguous + counts.orphans).toBeGreaterThan(0);
  }, 100_000);
});
