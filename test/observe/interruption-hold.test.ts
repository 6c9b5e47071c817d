/**
 * An entry that shows a client a task interrupted waits for the InterruptionReceipt it causes to be
 * durable (docs/design.md §5, §14.9), as a pause's does: the hold machinery applies to every entry
 * that causes a receipt.
 */
import { describe, expect, it } from 'vitest';
import { ObservationPipeline } from '../../src/observe/pipeline.js';
import { CTX, Entries, RECORDING_ID, TASK } from './entries.js';

describe('the hold of an interruption', () => {
  it('keeps the INPUT_REQUIRED answer back until its receipt is durable', async () => {
    let durable: () => void = () => undefined;
    const written: string[] = [];
    const pipeline = new ObservationPipeline({
      recordingId: RECORDING_ID,
      receipts: {
        appendSuspension: async () => ({ hash: 'sha256:s' }),
        appendResumption: async () => ({ hash: 'sha256:r' }),
        appendInterruption: async (draft) => {
          written.push(draft.type);
          return { hash: `sha256:${'1'.repeat(64)}` };
        },
        appendContinuation: async (draft) => {
          written.push(draft.type);
          return { hash: `sha256:${'2'.repeat(64)}` };
        },
        durable: () => new Promise<void>((resolve) => (durable = resolve)),
      },
    });
    const e = new Entries();
    const request = e.request('m0', 'SendMessage', {
      message: { messageId: 'm0', role: 'ROLE_USER', parts: [{ text: 'deploy' }] },
    });
    const answer = e.result('m0', {
      task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    });
    expect(pipeline.pushHeld(request)).toBeUndefined();
    const hold = pipeline.pushHeld(answer);
    expect(hold).toBeInstanceOf(Promise);
    let released = false;
    void hold?.then(() => (released = true));
    await pipeline.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['InterruptionReceipt']);
    expect(released).toBe(false);
    durable();
    await hold;
    expect(released).toBe(true);
  });
});
