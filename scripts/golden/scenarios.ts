/**
 * @module scripts/golden/scenarios
 * The conformance corpus: one small session per pause/resume behaviour, driven against the
 * reference peer in deterministic mode through `a2a-replay record`. Each scenario is named for
 * what it proves; `rule` is the RFC rule it pins. The virtual clock moves only on AdvanceClock.
 */
import { type A2aTestClient, stateOf, userMessage } from './a2a-client.js';
import { INTERRUPTION_SCENARIOS } from './interruption-scenarios.js';
import { STEP, type Scenario, type TaskResult } from './scenario.js';

export type { Scenario } from './scenario.js';

interface PauseResult {
  taskId: string;
  state: string;
  pause?: { resumeToken: string };
  metadata?: { harn?: { pause?: { handle?: string } } };
}

async function startTask(
  client: A2aTestClient,
  script: string,
  messageId: string,
  extra: Record<string, unknown> = {},
): Promise<TaskResult['task']> {
  const { task } = await client.ok<TaskResult>('SendMessage', {
    ...userMessage(script, messageId, extra),
    configuration: { returnImmediately: true },
  });
  return task;
}

function tokenOf(result: PauseResult): string {
  const token = result.pause?.resumeToken ?? result.metadata?.harn?.pause?.handle;
  if (!token) throw new Error(`no resume token in ${JSON.stringify(result)}`);
  return token;
}

async function pauseThenResume(client: A2aTestClient, mode: string, id: string): Promise<void> {
  await client.agentCard();
  const task = await startTask(client, 'work:3', `${id}-m1`);
  await client.control('AdvanceClock', { ms: STEP });
  const paused = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'operator review', mode });
  await client.control('AdvanceClock', { ms: 5 * STEP });
  await client.ok('GetTask', { id: task.id });
  await client.ok('ResumeTask', { taskId: task.id, resumeToken: tokenOf(paused) });
  await client.control('AdvanceClock', { ms: 3 * STEP });
  await client.ok('GetTask', { id: task.id });
}

/**
 * The caller-pause mode scenarios: `work:1 tool:4 work:1` with 1000 ms steps, paused at 2.5 s,
 * half-way through the tool call's second step (docs/design.md §3 "Modes"). Each mode's clock
 * moves are exactly what the reference peer needs, so a peer that ignores `mode` drifts:
 * - `interrupt_immediate` pauses at once (no tool artifact) and redoes the whole tool call after
 *   the resume: 4 + 1 steps to complete;
 * - `finish_step` waits for the end of that step (3 s), then 2 + 1 steps after the resume;
 * - `wait_for_completion` waits for the tool call to complete (5 s, its artifact before PAUSED),
 *   then 1 step after the resume.
 * A pause that waits is announced on the stream; the scenario waits for that announcement
 * before moving the clock, so the recorded order is the peer's.
 */
const MODE_TIMING: Record<string, { untilPaused: number; afterResume: number }> = {
  interrupt_immediate: { untilPaused: 0, afterResume: 5 * STEP },
  finish_step: { untilPaused: STEP / 2, afterResume: 3 * STEP },
  wait_for_completion: { untilPaused: 2.5 * STEP, afterResume: STEP },
};

const pausePending = (e: Record<string, unknown>) =>
  stateOf(e) === 'TASK_STATE_WORKING' &&
  (e as { statusUpdate?: { status?: { message?: { metadata?: { pausePending?: unknown } } } } }).statusUpdate?.status
    ?.message?.metadata?.pausePending !== undefined;

/** `resumer` reads the paused task and resumes it (default `client`: a session in one dialect). */
async function pauseMidTool(client: A2aTestClient, mode: string, id: string, resumer = client): Promise<void> {
  const timing = MODE_TIMING[mode];
  if (!timing) throw new Error(`no timing for mode ${mode}`);
  await client.agentCard();
  const stream = streamTask(client, 'work:1 tool:4 work:1', `${id}-m1`);
  const taskId = await taskIdOf(stream);
  await client.control('AdvanceClock', { ms: 2.5 * STEP });
  const pausing = client.ok<PauseResult>('PauseTask', { taskId, reason: 'operator review', mode });
  if (timing.untilPaused > 0) {
    await stream.next(pausePending);
    await client.control('AdvanceClock', { ms: timing.untilPaused });
  }
  const result = await pausing;
  await stream.next(paused);
  await resumer.ok('GetTask', { id: taskId });
  await resumer.ok('ResumeTask', { taskId, resumeToken: tokenOf(result) });
  await client.control('AdvanceClock', { ms: timing.afterResume });
  await stream.next(terminal);
  await stream.done;
  await client.ok('GetTask', { id: taskId });
}

/** Streams a task until it is done, returning the stream so the scenario can wait on events. */
function streamTask(client: A2aTestClient, script: string, messageId: string) {
  return client.stream('SendStreamingMessage', userMessage(script, messageId));
}

async function taskIdOf(stream: ReturnType<typeof streamTask>): Promise<string> {
  const first = (await stream.next((e) => 'task' in e)) as unknown as TaskResult;
  return first.task.id;
}

const paused = (e: Record<string, unknown>) => stateOf(e) === 'TASK_STATE_PAUSED';
const terminal = (e: Record<string, unknown>) =>
  ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED'].includes(stateOf(e) ?? '');

const JSON_RPC_SCENARIOS: Scenario[] = [
  {
    name: 'caller-pause-finish-step',
    proves:
      'a caller pause in the default mode during a tool call waits for the step in flight, pauses with the tool ' +
      'call suspended mid-way, and the tool call continues after the resume',
    rule:
      'WORKING -> PAUSED (PauseTask finish_step, initiatedBy CLIENT) at the end of the step in flight; ' +
      'PAUSED -> WORKING (ResumeTask, cause explicit_resume)',
    run: (client) => pauseMidTool(client, 'finish_step', 'finish'),
  },
  {
    name: 'caller-pause-interrupt-immediate',
    proves:
      'interrupt_immediate pauses at once, aborting the tool call in flight (no artifact); ' +
      'the tool call is redone after the resume',
    rule: 'PauseTask mode interrupt_immediate: in-flight tool calls are cancelled',
    run: (client) => pauseMidTool(client, 'interrupt_immediate', 'interrupt'),
  },
  {
    name: 'caller-pause-wait-for-completion',
    proves: 'wait_for_completion lets the tool call in flight complete (its artifact before PAUSED), then pauses',
    rule: 'PauseTask mode wait_for_completion: in-flight tool calls complete before PAUSED',
    run: (client) => pauseMidTool(client, 'wait_for_completion', 'wait'),
  },
  {
    name: 'idempotent-second-pause',
    proves: 'a second PauseTask on a PAUSED task returns the same pause and makes no second receipt',
    rule: 'PauseTask on an already PAUSED task is idempotent',
    run: async (client) => {
      const task = await startTask(client, 'work:2', 'idem-m1');
      const first = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'first' });
      await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'second' });
      await client.ok('ResumeTask', { taskId: task.id, resumeToken: tokenOf(first) });
      await client.control('AdvanceClock', { ms: 2 * STEP });
    },
  },
  {
    name: 'agent-self-park-on-event',
    proves: 'an agent parks itself on an event with no method call and the event resumes it',
    rule:
      'WORKING -> PAUSED (initiatedBy AGENT, seen on the stream); condition fires -> WORKING ' +
      '(cause condition_fired)',
    run: async (client) => {
      const stream = streamTask(client, 'work:1 await:ci.build.completed work:1', 'park-m1');
      await taskIdOf(stream);
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(paused);
      await client.control('FireEvent', { name: 'ci.build.completed' });
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(terminal);
      await stream.done;
    },
  },
  {
    name: 'scheduled-wake-up',
    proves: 'a task that sleeps until a time wakes up when the clock reaches it',
    rule: 'conditions.trigger.at reached -> WORKING (cause condition_fired)',
    run: async (client) => {
      const stream = streamTask(client, 'work:1 sleep-until:2026-01-01T00:10:00Z work:1', 'wake-m1');
      await taskIdOf(stream);
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(paused);
      await client.control('AdvanceClock', { ms: 10 * 60 * 1000 });
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(terminal);
      await stream.done;
    },
  },
  {
    name: 'timeout-fail',
    proves: 'a 30-minute pause with onTimeout fail ends the task FAILED when the time passes',
    rule: 'PAUSED -> FAILED (timeout elapsed with onTimeout "fail")',
    run: async (client) => {
      const stream = streamTask(client, 'work:1 await:approval:30:fail work:1', 'tfail-m1');
      await taskIdOf(stream);
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(paused);
      await client.control('AdvanceClock', { ms: 30 * 60 * 1000 });
      await stream.next(terminal);
      await stream.done;
    },
  },
  {
    name: 'timeout-resume',
    proves: 'a pause with onTimeout resume resumes by itself when the time passes',
    rule: 'timeout elapsed with onTimeout "resume" -> WORKING (cause timeout)',
    run: async (client) => {
      const stream = streamTask(client, 'work:1 await:approval:30:resume work:1', 'tres-m1');
      await taskIdOf(stream);
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(paused);
      await client.control('AdvanceClock', { ms: 30 * 60 * 1000 });
      await client.control('AdvanceClock', { ms: STEP });
      await stream.next(terminal);
      await stream.done;
    },
  },
  {
    name: 'resume-with-input-fresh-transcript',
    proves: 'a resume carries input (hashed in the receipt) and continueTranscript false',
    rule: 'ResumeTask input and continueTranscript',
    run: async (client) => {
      const task = await startTask(client, 'work:2', 'input-m1');
      const p = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'needs a decision' });
      await client.ok('ResumeTask', {
        taskId: task.id,
        resumeToken: tokenOf(p),
        input: { decision: 'approve', budget: 250 },
        continueTranscript: false,
      });
      await client.control('AdvanceClock', { ms: 2 * STEP });
      await client.ok('GetTask', { id: task.id, historyLength: 10 });
    },
  },
  {
    name: 'wrong-token-then-right',
    proves: 'a resume with a wrong token is rejected with -32011 and receipted, then the right token resumes',
    rule: 'ResumeTask with a token that is not the current pause token -> -32011',
    run: async (client) => {
      const task = await startTask(client, 'work:2', 'token-m1');
      const p = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'review' });
      await client.fails('ResumeTask', { taskId: task.id, resumeToken: 'not-the-token' });
      await client.ok('ResumeTask', { taskId: task.id, resumeToken: tokenOf(p) });
      await client.control('AdvanceClock', { ms: 2 * STEP });
    },
  },
  {
    name: 'double-resume-race',
    proves: 'of two resumes with the right token exactly one wins; the other is rejected',
    rule: 'tokens are consume-once; the task leaves PAUSED exactly once',
    run: async (client) => {
      const task = await startTask(client, 'work:2', 'race-m1');
      const p = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'review' });
      const resume = { taskId: task.id, resumeToken: tokenOf(p) };
      await client.ok('ResumeTask', resume);
      await client.fails('ResumeTask', resume);
      await client.control('AdvanceClock', { ms: 2 * STEP });
    },
  },
  {
    name: 'cancel-while-paused',
    proves: 'a paused task can be canceled; the suspension closes as canceled',
    rule: 'PAUSED -> CANCELED (CancelTask)',
    run: async (client) => {
      const task = await startTask(client, 'work:3', 'cancel-m1');
      await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'stop and think' });
      await client.ok('CancelTask', { id: task.id });
    },
  },
  {
    name: 'resubscribe-while-paused',
    proves: 'a subscriber that disconnects while paused and resubscribes sees PAUSED first, then the resume',
    rule: 'streams stay open across PAUSED; SubscribeToTask sends the current Task first',
    run: async (client) => {
      const first = streamTask(client, 'work:3', 'resub-m1');
      const taskId = await taskIdOf(first);
      const p = await client.ok<PauseResult>('PauseTask', { taskId, reason: 'review' });
      await first.next(paused);
      first.abort();
      await first.done;
      const second = client.stream('SubscribeToTask', { id: taskId });
      await second.next(paused);
      await client.ok('ResumeTask', { taskId, resumeToken: tokenOf(p) });
      await client.control('AdvanceClock', { ms: 3 * STEP });
      await second.next(terminal);
      await second.done;
    },
  },
  {
    name: 'pause-refused-terminal-and-input-required',
    proves: 'PauseTask on a COMPLETED task and on an INPUT_REQUIRED task is refused with -32010',
    rule: 'only WORKING -> PAUSED; INPUT_REQUIRED <-> PAUSED is disallowed',
    run: async (client) => {
      const done = await startTask(client, 'work:1', 'refuse-m1');
      await client.control('AdvanceClock', { ms: STEP });
      await client.fails('PauseTask', { taskId: done.id, reason: 'too late' });
      const asking = await startTask(client, 'input work:1', 'refuse-m2');
      await client.fails('PauseTask', { taskId: asking.id, reason: 'not now' });
      await client.fails('ResumeTask', { taskId: asking.id, resumeToken: 'none' });
    },
  },
  {
    name: 'budget-interrupt',
    proves: 'every running task in a context is paused at once (a budget interrupt), then resumed',
    rule: 'PauseTask interrupt_immediate over ListTasks(contextId); each pause and resume receipted',
    run: async (client) => {
      const first = await startTask(client, 'work:4', 'budget-m1');
      const contextId = first.contextId;
      await startTask(client, 'work:4', 'budget-m2', { contextId });
      await startTask(client, 'work:4', 'budget-m3', { contextId });
      await client.control('AdvanceClock', { ms: STEP });
      const { tasks } = await client.ok<{ tasks: { id: string }[] }>('ListTasks', {
        contextId,
        status: 'TASK_STATE_WORKING',
      });
      const pauses: PauseResult[] = [];
      const policy = client.as('policy-engine');
      for (const t of tasks) {
        pauses.push(
          await policy.ok<PauseResult>('PauseTask', {
            taskId: t.id,
            reason: 'budget ' + 'exceeded',
            mode: 'interrupt_immediate',
          }),
        );
      }
      await client.control('AdvanceClock', { ms: 60 * 1000 });
      for (const p of pauses)
        await client.as('finance-approver').ok('ResumeTask', { taskId: p.taskId, resumeToken: tokenOf(p) });
      await client.control('AdvanceClock', { ms: 4 * STEP });
    },
  },
  {
    name: 'legacy-harn-peer',
    proves:
      'a peer that tunnels pauses as WORKING + metadata.harn.pause yields the same receipts ' + '(via legacy-metadata)',
    rule: 'RFC "Compatibility and migration": metadata.harn.pause maps to TaskStatus.pause',
    legacy: true,
    run: (client) => pauseThenResume(client, 'finish_step', 'legacy'),
  },
  {
    name: 'lost-pause',
    proves: 'a pause that is never resumed is reported as lost when the recording ends',
    rule: 'a PAUSED task with no resume by the end of the session is a LostPause',
    run: async (client) => {
      const task = await startTask(client, 'work:3', 'lost-m1');
      await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'forgotten' });
      await client.control('AdvanceClock', { ms: 60 * 1000 });
    },
  },
  {
    name: 'poll-self-park-fired',
    proves: 'a self-park seen only by GetTask polls, resumed by FireEvent of its event, is closed and not lost',
    rule:
      'PAUSED (initiatedBy AGENT, seen in a GetTask answer) -> FireEvent {resumed: [task]} -> COMPLETED ' +
      '(cause condition_fired, inferred)',
    run: async (client) => {
      const task = await startTask(client, 'work:1 await:approval:30 work:1', 'pfired-m1');
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
      await client.control('FireEvent', { name: 'approval' });
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
    },
  },
  {
    name: 'poll-timeout-fail',
    proves: 'a self-park whose timeout fails the task, seen only by GetTask polls, closes as failed by timeout',
    rule: 'PAUSED -> AdvanceClock past the timeout -> FAILED seen by GetTask (cause timeout, outcome failed, inferred)',
    run: async (client) => {
      const task = await startTask(client, 'work:1 await:approval:30:fail work:1', 'ptfail-m1');
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
      await client.control('AdvanceClock', { ms: 30 * 60 * 1000 });
      await client.ok('GetTask', { id: task.id });
    },
  },
  {
    name: 'poll-caller-pause-resume',
    proves: 'a caller pause and resume followed by ListTasks polls, with no stream, yields one pause and one resume',
    rule: 'PauseTask answer proves PAUSED; ListTasks shows it; the ResumeTask answer closes it (explicit_resume)',
    run: async (client) => {
      const task = await startTask(client, 'work:3', 'pcaller-m1');
      await client.control('AdvanceClock', { ms: STEP });
      const p = await client.ok<PauseResult>('PauseTask', { taskId: task.id, reason: 'operator review' });
      await client.ok('ListTasks', { contextId: task.contextId });
      await client.ok('ResumeTask', { taskId: task.id, resumeToken: tokenOf(p) });
      await client.control('AdvanceClock', { ms: 3 * STEP });
      await client.ok('ListTasks', { contextId: task.contextId });
    },
  },
  {
    name: 'poll-external-event',
    proves: 'a FireEvent whose payload names a paused task resumes it, and polls see a receipted external_event',
    rule: 'FireEvent {payload.taskId} on a task paused on another event -> WORKING (cause external_event, inferred)',
    run: async (client) => {
      const task = await startTask(client, 'work:1 await:review work:1', 'pext-m1');
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
      await client.control('FireEvent', { name: 'operator.override', payload: { taskId: task.id } });
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
    },
  },
];

/**
 * Scenarios also recorded over HTTP+JSON (docs/design.md §15) and over gRPC (§16): the same
 * session, another binding, named `rest-<name>` and `grpc-<name>`.
 */
export const TWINNED = ['caller-pause-finish-step', 'agent-self-park-on-event', 'wrong-token-then-right', 'lost-pause'];

/** The prefix and the words a twin's name and `proves` get in each other binding. */
export const TWIN_BINDINGS = [
  { prefix: 'rest-', binding: 'HTTP+JSON', over: 'over HTTP+JSON' },
  { prefix: 'grpc-', binding: 'GRPC', over: 'over gRPC' },
] as const;

function twin(name: string, twinBinding: (typeof TWIN_BINDINGS)[number]): Scenario {
  const base = JSON_RPC_SCENARIOS.find((s) => s.name === name);
  if (!base) throw new Error(`no scenario ${name} to record ${twinBinding.over}`);
  return {
    ...base,
    name: `${twinBinding.prefix}${name}`,
    proves: `${base.proves} (${twinBinding.over})`,
    binding: twinBinding.binding,
  };
}

/**
 * Scenarios also recorded with the client speaking A2A v0.3 (docs/design.md §4 "Two dialects",
 * §14.10): every interruption scenario, the caller pauses of {@link TWINNED} through the peer's
 * v0.3 pause extension (`tasks/pause`, `tasks/resume`; `:pause`, `:resume` over HTTP+JSON), and the
 * agent's self-park on an event, resumed by FireEvent. Named `v03-<name>` over JSON-RPC and
 * `v03-rest-<name>` over HTTP+JSON (under `/rest/v1/`).
 */
export const V03_TWINNED = [
  'caller-pause-finish-step',
  'agent-self-park-on-event',
  'wrong-token-then-right',
  'lost-pause',
  'input-asked-answered',
  'input-never-answered',
  'input-answered-as-new-task',
  'auth-continued-out-of-band',
  'input-gate-bypassed',
];

/** The prefix, binding and words of each v0.3 twin. */
export const V03_BINDINGS = [
  { prefix: 'v03-', binding: 'JSONRPC', over: 'in A2A v0.3 over JSON-RPC' },
  { prefix: 'v03-rest-', binding: 'HTTP+JSON', over: 'in A2A v0.3 over HTTP+JSON' },
] as const;

function v03Twin(name: string, v03: (typeof V03_BINDINGS)[number]): Scenario {
  const base = [...JSON_RPC_SCENARIOS, ...INTERRUPTION_SCENARIOS].find((s) => s.name === name);
  if (!base) throw new Error(`no scenario ${name} to record ${v03.over}`);
  return {
    ...base,
    name: `${v03.prefix}${name}`,
    proves: `${base.proves} (${v03.over})`,
    binding: v03.binding,
    dialect: '0.3',
  };
}

/**
 * One session in two dialects: `caller-pause-finish-step` with the task streamed and paused in v0.3
 * (`message/stream`, `tasks/pause`) and read and resumed in v1.0 (GetTask, ResumeTask), as a
 * compatibility server's clients of both versions would. Its receipts are that scenario's: one pause.
 */
export const MIXED_DIALECT: Scenario = {
  name: 'mixed-dialect-pause-v03-resume-v10',
  proves:
    'a pause asked in A2A v0.3 and resumed in v1.0 on the same task is one pause: one suspension and the ' +
    'resumption that closes it, as when one dialect carries both',
  rule:
    'WORKING -> PAUSED (tasks/pause finish_step, initiatedBy CLIENT); PAUSED -> WORKING (ResumeTask, cause ' +
    'explicit_resume); the facts are the same whichever dialect carried them',
  dialect: '0.3',
  run: (client) => pauseMidTool(client, 'finish_step', 'finish', client.speaking('1.0')),
};

export const SCENARIOS: Scenario[] = [
  ...JSON_RPC_SCENARIOS,
  ...TWIN_BINDINGS.flatMap((b) => TWINNED.map((name) => twin(name, b))),
  ...INTERRUPTION_SCENARIOS,
  ...V03_BINDINGS.flatMap((b) => V03_TWINNED.map((name) => v03Twin(name, b))),
  MIXED_DIALECT,
];
