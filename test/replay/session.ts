/**
 * Helpers for replay tests: a small A2A client over fetch, and the sessions the tests record (the
 * CLI servers they record through are test/helpers/cli-process.ts's).
 */
import { SseParser } from '../../src/intercept/sse-parser.js';

let nextId = 1;

export async function call(url: string, method: string, params: unknown, path = '/'): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

export async function ok<T>(url: string, method: string, params: unknown, path = '/'): Promise<T> {
  const reply = await call(url, method, params, path);
  if (!('result' in reply)) throw new Error(`${method} failed: ${JSON.stringify(reply)}`);
  return reply.result as T;
}

/** Streams a SendStreamingMessage until `until` matches an event; the rest is read in the background. */
export async function stream(
  url: string,
  text: string,
  until: (event: Record<string, unknown>) => boolean,
): Promise<{ rest: Promise<void> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'SendStreamingMessage',
      params: { message: { messageId: `m-${nextId}`, role: 'ROLE_USER', parts: [{ text }] } },
    }),
  });
  const reader = res.body!.getReader();
  const parser = new SseParser();
  let matched = false;
  const pump = async (): Promise<void> => {
    for (;;) {
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done || value === undefined) return;
      for (const { data } of parser.push(value)) {
        if (data && !matched && until((JSON.parse(data) as { result: Record<string, unknown> }).result)) {
          matched = true;
          return;
        }
      }
    }
  };
  await pump();
  if (!matched) throw new Error('the stream ended before the awaited event');
  return { rest: pump() };
}

/** A caller pause and resume on the deterministic peer, with the virtual clock moved by hand. */
export async function callerPauseSession(url: string): Promise<void> {
  const { task } = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  await ok(url, 'AdvanceClock', { ms: 1000 }, '/control');
  const paused = await ok<{ pause: { resumeToken: string } }>(url, 'PauseTask', {
    taskId: task.id,
    reason: 'review',
    mode: 'finish_step',
  });
  await ok(url, 'AdvanceClock', { ms: 5000 }, '/control');
  await ok(url, 'ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  await ok(url, 'AdvanceClock', { ms: 3000 }, '/control');
  await ok(url, 'GetTask', { id: task.id });
}

/** A self-parking streamed task woken by an event: works on a real-time peer too. */
export async function selfParkSession(url: string): Promise<void> {
  const isPaused = (e: Record<string, unknown>): boolean =>
    (e.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_PAUSED';
  const { rest } = await stream(url, 'await:go', isPaused);
  await ok(url, 'FireEvent', { name: 'go' }, '/control');
  await rest;
}

/** What a GetTask or PauseTask answer shows of a task. */
interface TaskView {
  id: string;
  status: { state: string };
  artifacts?: unknown[];
}

/**
 * The most common client of a real-time peer: sends `work:10` with returnImmediately, reads the
 * task with GetTask every `pollMs` until two artifacts are out, pauses it (answered once PAUSED),
 * resumes it, and reads it every `pollMs` again until it completes. Eight steps are left when it
 * pauses, so a client late on its timers by a loaded machine still pauses a working task.
 */
export async function pollingSession(url: string, pollMs: number): Promise<void> {
  const { task } = await ok<{ task: TaskView }>(url, 'SendMessage', {
    message: { messageId: `m-poll-${pollMs}`, role: 'ROLE_USER', parts: [{ text: 'work:10' }] },
    configuration: { returnImmediately: true },
  });
  const pollUntil = async (done: (t: TaskView) => boolean): Promise<void> => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      if (done(await ok<TaskView>(url, 'GetTask', { id: task.id }))) return;
    }
  };
  await pollUntil((t) => (t.artifacts?.length ?? 0) >= 2);
  const paused = await ok<{ pause: { resumeToken: string } }>(url, 'PauseTask', { taskId: task.id, reason: 'review' });
  await ok(url, 'ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  await pollUntil((t) => t.status.state === 'TASK_STATE_COMPLETED');
}
