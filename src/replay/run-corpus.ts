/**
 * @module replay/run-corpus
 * Many recordings (docs/design.md §8): picks this machine's shard, runs up to `concurrency` recordings at
 * once (each with its own fresh peer), and returns every result in sorted path order with the
 * run's exit code. Results are reported as they finish through `onResult`. Once `signal` is
 * aborted, no further recording begins and the summary holds the results of those run.
 */
import { type Clock, systemClock } from '../clock.js';
import { type RecordingResult, type RunSummary, summaryExitCode } from './result.js';
import { type RunRecordingOptions, runRecording } from './run-recording.js';
import { type Shard, selectShard } from './shard.js';

export interface RunCorpusOptions extends Omit<RunRecordingOptions, 'onProgress'> {
  /** Recordings run at once (default 1). */
  concurrency?: number;
  shard?: Shard;
  /** Directory paths are normalized against for sharding (default `process.cwd()`). */
  base?: string;
  onResult?: (result: RecordingResult) => void;
  onProgress?: (file: string, settled: number, total: number) => void;
}

/** Runs the recordings of this shard and summarizes. */
export async function runCorpus(files: readonly string[], options: RunCorpusOptions): Promise<RunSummary> {
  const clock: Clock = options.clock ?? systemClock;
  const started = clock.now();
  const picked = selectShard(files, options.shard, options.base ?? process.cwd());
  const results = new Array<RecordingResult>(picked.length);
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, picked.length || 1));
  let next = 0;
  const { onProgress, concurrency: _c, shard: _s, base: _b, onResult: _r, ...perRecording } = options;
  const worker = async (): Promise<void> => {
    // Once stopped (SIGINT, SIGTERM), recordings not begun are not begun: the summary lists those run.
    while (next < picked.length && !options.signal?.aborted) {
      const i = next++;
      const file = picked[i] as string;
      const result = await runRecording(file, {
        ...perRecording,
        ...(onProgress ? { onProgress: (settled: number, total: number) => onProgress(file, settled, total) } : {}),
      });
      results[i] = result;
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const run = results.filter((r): r is RecordingResult => r !== undefined);
  return { results: run, exitCode: summaryExitCode(run), durationMs: clock.now() - started };
}
