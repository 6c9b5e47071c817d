/**
 * `a2a-replay peer --traces DIR` as a process: the peer observes its own traffic and, on SIGTERM,
 * writes the spans of the pauses it served to `DIR/peer.otlp.json` before exiting.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type CliProcess, startCliProcess, stopProcess } from '../helpers/cli-process.js';
import { ok } from '../replay/session.js';
import { type OtlpTraceRequest, attributesOf, spansOf } from '../tracing/otlp-proto.js';

let dir = '';
let peer: CliProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-tracing-'));
});
afterEach(async () => {
  if (peer) await stopProcess(peer, 'SIGKILL');
  peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

it.each(['SIGTERM', 'SIGINT'] as const)(
  'writes a Suspension span for a PauseTask it served, flushed on %s',
  async (signal) => {
    const traces = join(dir, 'traces');
    peer = await startCliProcess(['peer', '--deterministic', '--traces', traces]);
    const url = peer.url;
    const { task } = await ok<{ task: { id: string } }>(url, 'SendMessage', {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
    const paused = await ok<{ pause: { resumeToken: string } }>(url, 'PauseTask', {
      taskId: task.id,
      reason: 'review',
    });
    await ok(url, 'ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    expect(await stopProcess(peer, signal)).toBe(0);
    expect(peer.stderr()).toBe('');

    const spans = spansOf(JSON.parse(await readFile(join(traces, 'peer.otlp.json'), 'utf8')) as OtlpTraceRequest);
    const suspension = spans.find((s) => s.name === 'Suspension');
    expect(attributesOf(suspension?.attributes)).toMatchObject({
      'a2a.task.id': task.id,
      'a2a.pause.via': 'PauseTask',
      'a2a.pause.reason': 'review',
    });
    const resume = spans.find((s) => s.name === 'Resume');
    expect(resume?.links?.[0]).toMatchObject({ traceId: suspension?.traceId, spanId: suspension?.spanId });
    expect(spans.filter((s) => s.name === 'LostPause')).toEqual([]);
  },
);
