/**
 * @module scripts/golden/scenario
 * What a golden scenario is, and the units its clock moves in (scripts/golden/scenarios.ts).
 */
import type { A2aTestClient, ClientBinding, ClientDialect } from './a2a-client.js';

export interface Scenario {
  name: string;
  proves: string;
  rule: string;
  /** Run the peer with `--legacy-pause`. */
  legacy?: boolean;
  /** Run the peer with `--bypass-ask-after MS`: an `ask:` step moves on with no input MS clock ms after it asked. */
  bypassAskAfterMs?: number;
  /** The binding the client speaks (default JSONRPC); control calls are JSON-RPC whatever it is. */
  binding?: ClientBinding;
  /** The A2A version the client speaks (default 1.0; docs/design.md §14.10). */
  dialect?: ClientDialect;
  run(client: A2aTestClient): Promise<void>;
}

/** A task as SendMessage answers it. */
export interface TaskResult {
  task: { id: string; contextId: string; status: { state: string } };
}

/** A step of the scripted agent on the virtual clock. */
export const STEP = 1000;

/** A minute of the virtual clock: how long a person takes to look at a prompt. */
export const MINUTE = 60 * 1000;
