/**
 * A pause session recorded through `a2a-replay record` in front of a fresh
 * `a2a-replay peer --deterministic`, for whole-process tests of the recorder.
 */
import { expect } from 'vitest';
import { call, ok } from '../replay/session.js';
import { type CliProcess, startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';

/** Task A: paused, a wrong-token resume (rejected), resumed. Task B: paused and left behind. */
export async function pauseSession(url: string): Promise<void> {
  const start = (): Promise<{ task: { id: string } }> =>
    ok(url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
  const a = await start();
  await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
  const paused = await ok<{ pause: { resumeToken: string } }>(url, 'PauseTask', {
    taskId: a.task.id,
    reason: 'review',
  });
  expect(await call(url, 'ResumeTask', { taskId: a.task.id, resumeToken: 'wrong' })).toMatchObject({
    error: { code: -32011 },
  });
  await ok(url, 'AdvanceClock', { ms: 5000 }, '/control');
  await ok(url, 'ResumeTask', { taskId: a.task.id, resumeToken: paused.pause.resumeToken });
  await ok(url, 'AdvanceClock', { ms: 3000 }, '/control');
  const b = await start();
  await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
  await ok(url, 'PauseTask', { taskId: b.task.id, reason: 'left behind' });
}

/** Records {@link pauseSession} through `a2a-replay record RECORD_ARGS` in front of a fresh deterministic peer. */
export async function recordPauseSession(recordArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<CliProcess> {
  const peer = await startCliProcess(['peer', '--deterministic']);
  try {
    const recorder = await startRecordProcess(['--upstream', peer.url, ...recordArgs], env);
    try {
      await pauseSession(recorder.url);
    } finally {
      expect(await stopProcess(recorder)).toBe(0);
    }
    return recorder;
  } finally {
    await stopProcess(peer);
  }
}
