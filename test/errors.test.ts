/**
 * Which failures are the infrastructure's (src/errors.ts `isInfrastructureError`): what `run` counts
 * as an infrastructure outcome and every command exits 3 for, against bad input (exit 2).
 */
import { expect, it } from 'vitest';
import { A2aReplayError, type A2aReplayErrorCode, isInfrastructureError } from '../src/public/core.js';

it('counts an unreachable or crashed peer, a deadline and a failed disk as the infrastructure, not the input', () => {
  const infra: A2aReplayErrorCode[] = ['PEER_UNREACHABLE', 'PEER_CRASHED', 'DEADLINE_EXCEEDED', 'IO_FAILED'];
  for (const code of infra) expect(isInfrastructureError(new A2aReplayError(code, 'x')), code).toBe(true);
  const input: A2aReplayErrorCode[] = ['RECORDING_MALFORMED', 'INVALID_ARGUMENT', 'RECEIPT_INVALID'];
  for (const code of input) expect(isInfrastructureError(new A2aReplayError(code, 'x')), code).toBe(false);
});
