/**
 * `a2a-replay mock FILE...` in the test's process: each recording read as the command reads it
 * (cli/commands/mock.ts) and served by `startMockServer` on a free loopback port, with the
 * command's defaults (no noise rules, nothing ignored). The caller closes it.
 */
import { readRecording } from '../../src/public/intercept.js';
import { type MockSource, REPLAY_MAX_BODY_DEPTH, type RunningMock, startMockServer } from '../../src/public/mock.js';

export async function startMock(files: readonly string[]): Promise<RunningMock> {
  const sources: MockSource[] = [];
  for (const file of files)
    sources.push({ source: file, recording: await readRecording(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH }) });
  return startMockServer(sources, { host: '127.0.0.1', port: 0, noise: {}, ignore: [] });
}
