/**
 * The PauseObserver's memory stays flat however many pauses it sees (docs/design.md §14.6): after
 * many pause/resume pairs, what it retains is bounded by constants, not by the number of tasks.
 * Sizes are counted through `stats()`, never timed (the timing is bench/observer-scale.ts).
 */
import { describe, expect, it } from 'vitest';
import { type ObserverStats, PauseObserver } from '../../src/observe/pause-observer.js';
import { ObservationPipeline, type ReceiptSink } from '../../src/observe/pipeline.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { fixedKey } from '../receipts/fixtures.js';
import { pauseResumePairs } from '../fixtures/pause-traffic.js';

function observePairs(count: number): {
  stats: ObserverStats;
  suspensions: number;
  resumptions: number;
  other: string[];
} {
  const observer = new PauseObserver({ recordingId: 'rec-scale' });
  let suspensions = 0;
  let resumptions = 0;
  const other: string[] = [];
  for (const entry of pauseResumePairs(count)) {
    for (const out of observer.observe(entry)) {
      if (out.type === 'suspension') suspensions++;
      else if (out.type === 'resumption') resumptions++;
      else if (out.type === 'finding') other.push(`${out.finding.code} ${out.finding.message}`);
      else if (out.type === 'span' && out.event.type === 'lost') other.push(`lost ${out.event.reason}`);
    }
  }
  return { stats: observer.stats(), suspensions, resumptions, other };
}

/*
 * Every memory is capped by a constant (4,096 ended tasks and finished exchanges, 1,024 controls,
 * 16,384 closed receipt hashes, two per pair): each size below is past its cap, so that a memory
 * kept per pause would exceed it (checked: with the caps lifted, 10,000 tasks and 20,000 hashes).
 */
const PIPELINE_PAIRS = 10_000;

describe('PauseObserver at scale', () => {
  it('retains O(1) state after 10,000 pause/resume pairs, the same as after 5,000', () => {
    const small = observePairs(5_000);
    const large = observePairs(10_000);
    expect(large.other).toEqual([]);
    expect(large.suspensions).toBe(10_000);
    expect(large.resumptions).toBe(10_000);
    // Nothing live is left, and every memory of what ended is capped.
    expect(large.stats).toMatchObject({ exchanges: 0, tasks: 0, openSuspensions: 0, resumingSuspensions: 0 });
    expect(large.stats.retiredTasks).toBeLessThanOrEqual(4096);
    expect(large.stats.recentlyEnded).toBeLessThanOrEqual(4096);
    expect(large.stats.finishedExchanges).toBeLessThanOrEqual(4096);
    expect(large.stats.controlsByTask).toBeLessThanOrEqual(1024);
    expect(large.stats.controlsByName).toBeLessThanOrEqual(1024);
    // Deadlines of pauses resumed early are compacted away, not kept per pause.
    expect(large.stats.deadlines).toBeLessThanOrEqual(64);
    // Twice the pairs, the same retained sizes (the deadline heap saws between compactions).
    const { deadlines: _large, ...rest } = large.stats;
    const { deadlines: _small, ...before } = small.stats;
    expect(rest).toEqual(before);
  });
});

describe('ObservationPipeline at scale', () => {
  it('keeps no receipt hash of a closed pause beyond a cap, and no finding when told not to', async () => {
    const chain = new ReceiptChain({
      keyring: new Keyring([fixedKey('key-a')]),
      checkpointEvery: 0,
      recording: 'rec-scale',
      createdAt: '2026-01-01T00:00:00.000Z',
      tool: 'test',
    });
    let written = 0;
    const sink: ReceiptSink = {
      appendSuspension: async (draft) => {
        written++;
        return { hash: chain.sealSuspension(draft).receipt.hash };
      },
      appendResumption: async (draft, suspension) => {
        written++;
        return { hash: chain.sealResumption(draft, suspension).receipt.hash };
      },
      // Pause traffic only: no interruption is ever drafted, and a call would be a miscount.
      appendInterruption: () => Promise.reject(new Error('no interruption expected')),
      appendContinuation: () => Promise.reject(new Error('no continuation expected')),
    };
    const pipeline = new ObservationPipeline({ recordingId: 'rec-scale', receipts: sink, retainFindings: false });
    for (const entry of pauseResumePairs(PIPELINE_PAIRS)) void pipeline.push(entry);
    await pipeline.idle();
    expect(written).toBe(2 * PIPELINE_PAIRS);
    expect(pipeline.failures.receipts).toBe(0);
    expect(pipeline.retained.openHashes).toBe(0);
    expect(pipeline.retained.closedHashes).toBeLessThanOrEqual(16_384);
    expect(pipeline.retained.findings).toBe(0);
  });
});
