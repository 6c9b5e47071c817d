/**
 * An observer told nobody takes span events (a recorder without a span sink) outputs everything
 * else exactly as one that builds them: the same receipt drafts (which name span ids), findings
 * and order, over every recording of the golden corpus (docs/design.md §7).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ObserverOutput, PauseObserver } from '../../src/observe/pause-observer.js';
import { readRecording } from '../../src/recording/recording-reader.js';

const GOLDEN = fileURLToPath(new URL('../../golden/', import.meta.url));
const scenarios = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

async function outputsOf(scenario: string, spans: boolean): Promise<ObserverOutput[]> {
  const recording = await readRecording(join(GOLDEN, scenario, 'recording.jsonl'));
  const observer = new PauseObserver({ recordingId: recording.header.id, spans });
  const last = recording.entries.at(-1)?.at ?? recording.header.createdAt;
  return [...recording.entries.flatMap((entry) => observer.observe(entry)), ...observer.finish(last)];
}

describe('an observer without span events', () => {
  it('reads the whole golden corpus', () => {
    expect(scenarios.length).toBeGreaterThan(30);
  });

  for (const scenario of scenarios) {
    it(`${scenario}: the same outputs but for the span events`, async () => {
      const withSpans = await outputsOf(scenario, true);
      const without = await outputsOf(scenario, false);
      expect(withSpans.some((o) => o.type === 'span')).toBe(true);
      expect(without.some((o) => o.type === 'span')).toBe(false);
      expect(without).toEqual(withSpans.filter((o) => o.type !== 'span'));
    });
  }
});
