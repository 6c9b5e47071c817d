import { describe, expect, it } from 'vitest';
import { VerdictRules } from '../../src/observe/verdict-rules.js';
import { Entries, RECORDING_ID, TASK, clientPause, observeAll, pauseResult, suspensions } from './entries.js';

describe('VerdictRules', () => {
  it("finds a pause's rules by the Suspension span of a log of any format", () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const rules = new VerdictRules(RECORDING_ID);
    for (const entry of e.list) rules.observe(entry);
    rules.finish(e.list.at(-1)?.at ?? '');
    for (const spans of ['pause', 'recording'] as const) {
      const [draft] = suspensions(observeAll(e.list, undefined, RECORDING_ID, spans));
      expect(draft && rules.of(draft.span), spans).toEqual({
        pause: expect.stringMatching(/^pending\//) as unknown,
        end: 'open/end-recording-ended',
      });
    }
  });
});
