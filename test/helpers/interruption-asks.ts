/**
 * A client's side of an interruption on the reference peer (docs/design.md §14.9): a message whose
 * script asks (`ask:PROMPT`) holds its task in INPUT_REQUIRED, and a follow-up naming the task
 * answers it. Shared by the fleet tests that ask through one replica and answer through another.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import type { ReceiptKey } from '../../src/receipts/keys.js';
import type { A2aTestClient } from '../../scripts/golden/a2a-client.js';

/** Sends `text` (an `ask:` script) as a new task; returns the task's id, checked INPUT_REQUIRED. */
export async function ask(client: A2aTestClient, text: string): Promise<string> {
  const { task } = await client.ok<{ task: { id: string; status: { state: string } } }>('SendMessage', {
    message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
  });
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task.id;
}

/** Answers the ask of `taskId` with "yes"; checks the task completed. */
export async function answer(client: A2aTestClient, taskId: string): Promise<void> {
  const { task } = await client.ok<{ task: { status: { state: string } } }>('SendMessage', {
    message: { messageId: `m-yes-${taskId}`, role: 'ROLE_USER', parts: [{ text: 'yes' }], taskId },
  });
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
}

/** Writes `DIR/<name>.key.json` for each replica's key, mode 0600. */
export async function writeReplicaKeys(dir: string, keys: Record<string, ReceiptKey>): Promise<void> {
  for (const [name, key] of Object.entries(keys))
    await writeFile(join(dir, `${name}.key.json`), canonicalJson(key.keyFile()), { mode: 0o600 });
}
