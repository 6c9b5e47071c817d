/**
 * @module scripts/golden/interruption-scenarios
 * The golden interruption scenarios (docs/design.md §14.9), driven as scripts/golden/scenarios.ts
 * drives the pauses.
 */
import { type A2aTestClient, stateOf, userMessage } from './a2a-client.js';
import { MINUTE, STEP, type Scenario, type TaskResult } from './scenario.js';

/** A blocking SendMessage of a script: the task it answers with, once it is interrupted or done. */
async function ask(client: A2aTestClient, script: string, messageId: string): Promise<TaskResult['task']> {
  const { task } = await client.ok<TaskResult>('SendMessage', userMessage(script, messageId));
  if (stateOf({ task }) !== 'TASK_STATE_INPUT_REQUIRED' && stateOf({ task }) !== 'TASK_STATE_AUTH_REQUIRED')
    throw new Error(`${messageId}: the task did not ask (${stateOf({ task }) ?? 'no state'})`);
  return task;
}

/** The approval gate answered: asked, a minute passes, another person answers on the task, it completes. */
async function askedAndAnswered(client: A2aTestClient): Promise<void> {
  await client.agentCard();
  const task = await ask(client, 'ask:approve_the_deploy? work:1', 'gate-m1');
  await client.control('AdvanceClock', { ms: MINUTE });
  await client.ok('GetTask', { id: task.id });
  await client.as('approver').ok('SendMessage', {
    ...userMessage('yes', 'gate-m2', { taskId: task.id, contextId: task.contextId }),
    configuration: { returnImmediately: true },
  });
  await client.control('AdvanceClock', { ms: STEP });
  await client.ok('GetTask', { id: task.id });
}

/**
 * Interruptions (docs/design.md §14.9): the agent asks for input (INPUT_REQUIRED) or credentials
 * (AUTH_REQUIRED), and the gate is answered, left unanswered, answered in a new task, continued
 * out of band, or walked past. Their golden logs are of version 5, which holds InterruptionReceipts
 * and ContinuationReceipts.
 */
export const INTERRUPTION_SCENARIOS: Scenario[] = [
  {
    name: 'input-asked-answered',
    proves:
      'an agent that asks for input waits until a client message names the task; the answer, from another ' +
      'person, continues it and is receipted with who answered and the hash of what they said',
    rule:
      'WORKING -> INPUT_REQUIRED (status.message the prompt); SendMessage{taskId} -> WORKING -> COMPLETED ' +
      '(continuation cause message)',
    run: askedAndAnswered,
  },
  {
    name: 'input-never-answered',
    proves: 'a prompt nobody answers is still open when the recording ends: an interruption never continued',
    rule: 'INPUT_REQUIRED with no message naming the task by the end of the session: never_continued',
    run: async (client) => {
      const task = await ask(client, 'ask:which_region? work:1', 'unanswered-m1');
      await client.control('AdvanceClock', { ms: MINUTE });
      await client.ok('GetTask', { id: task.id });
    },
  },
  {
    name: 'input-answered-as-new-task',
    proves:
      "an answer sent in the task's context without its id starts a new task instead, and the asking task " +
      'is left waiting: the answer went elsewhere',
    rule:
      'SendMessage{contextId, no taskId} while a task of the context is INPUT_REQUIRED -> a new task: ' +
      'continued_as_new_task',
    run: async (client) => {
      const task = await ask(client, 'ask:which_region? work:1', 'newtask-m1');
      const { task: other } = await client.ok<TaskResult>('SendMessage', {
        ...userMessage('eu-west', 'newtask-m2', { contextId: task.contextId }),
        configuration: { returnImmediately: true },
      });
      await client.control('AdvanceClock', { ms: 3 * STEP });
      await client.ok('GetTask', { id: other.id });
    },
  },
  {
    name: 'auth-continued-out-of-band',
    proves:
      'an agent that needs credentials moves on once they arrive out of band (FireEvent credentials naming ' +
      'the task), with no client message: the continuation is receipted out_of_band',
    rule: 'WORKING -> AUTH_REQUIRED; credentials out of band -> WORKING -> COMPLETED (continuation cause out_of_band)',
    run: async (client) => {
      const task = await ask(client, 'auth:sign_in_to_the_registry work:1', 'auth-m1');
      await client.control('AdvanceClock', { ms: MINUTE });
      await client.control('FireEvent', { name: 'credentials', payload: { taskId: task.id } });
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
    },
  },
  {
    name: 'input-gate-bypassed',
    proves:
      "an agent that asks for approval and then goes on without any answer (the peer's bypass variant) is " +
      'caught walking past the gate',
    rule: 'INPUT_REQUIRED -> WORKING with no client message naming the task: bypassed',
    bypassAskAfterMs: MINUTE,
    run: async (client) => {
      const task = await ask(client, 'ask:approve_the_deploy? work:1', 'bypass-m1');
      await client.control('AdvanceClock', { ms: MINUTE });
      await client.ok('GetTask', { id: task.id });
      await client.control('AdvanceClock', { ms: STEP });
      await client.ok('GetTask', { id: task.id });
    },
  },
  {
    name: 'rest-input-asked-answered',
    proves:
      'an agent that asks for input waits until a client message names the task; the answer, from another ' +
      'person, continues it and is receipted with who answered and the hash of what they said (over HTTP+JSON)',
    rule:
      'WORKING -> INPUT_REQUIRED (status.message the prompt); SendMessage{taskId} -> WORKING -> COMPLETED ' +
      '(continuation cause message)',
    binding: 'HTTP+JSON',
    run: askedAndAnswered,
  },
];
