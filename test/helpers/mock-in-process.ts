/**
 * `a2a-replay mock` in the test's process, as the command starts it (cli/commands/mock.ts): each
 * recording read as the command reads it and served by `startMockServer` on a free loopback port,
 * and at the stop what its summary lists — the recorded exchanges never requested (what `mock
 * --expect-all` exits 1 for) and the requests nothing matched. The mock is the caller's to stop.
 * (`verify`, `lost` and `audit` are test/helpers/verdicts.ts's, `run` test/helpers/run-report.ts's.)
 */
import { readRecording } from '../../src/public/intercept.js';
import { type MockSource, REPLAY_MAX_BODY_DEPTH, type RunningMock, startMockServer } from '../../src/public/mock.js';

/** `mock FILE...`: each file read as `mock` reads it, served on a free loopback port. */
export async function startMock(files: readonly string[]): Promise<RunningMock> {
  const sources: MockSource[] = [];
  for (const file of files)
    sources.push({ source: file, recording: await readRecording(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH }) });
  return startMockServer(sources, { host: '127.0.0.1', port: 0, noise: {}, ignore: [] });
}

/**
 * Stops the mock and says what its stop summary would list: the recorded exchanges never requested
 * (what `mock --expect-all` exits 1 for) and the requests no recorded exchange matched.
 */
export async function stopMock(mock: RunningMock): Promise<{ unrequested: string[]; unmatched: string[] }> {
  await mock.close();
  const report = mock.report();
  return {
    unrequested: report.recordings.flatMap((r) =>
      r.unrequested.map((e) => `${e.recording} seq ${e.seq} (xid ${e.xid}) ${e.method}`),
    ),
    unmatched: report.unmatched.map((u) => `${u.method} ${u.path}`),
  };
}
