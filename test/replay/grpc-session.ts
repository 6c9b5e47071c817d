/**
 * A gRPC session recorded from real traffic with the deterministic reference peer, for the tests
 * of `run` and `mock` over gRPC (docs/design.md §16).
 */
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { GrpcSessionWriter } from '../helpers/grpc-session-writer.js';

function rec(value: JsonValue | undefined): Record<string, JsonValue> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
  return value;
}

/**
 * Records, with the deterministic reference peer over gRPC: a unary send, a get, a get of an
 * unknown task, a streamed send the peer's clock moves to its end, then a pause, a wrong token
 * and a resume while the task's subscription stream stays open across PAUSED.
 */
export async function recordGrpcSession(file: string): Promise<void> {
  const peer = await startPeer({ deterministic: true });
  const writer = new GrpcSessionWriter(peer.grpcUrl);
  try {
    const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as JsonValue;
    const message = (text: string, id: string): JsonValue => ({
      message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately: true },
    });
    const sent = await writer.unary('SendMessage', message('input', 'm-1'));
    if (!sent.ok) throw new Error('SendMessage failed');
    const taskId = rec(rec(sent.body).task).id as string;
    await writer.unary('GetTask', { id: taskId });
    await writer.unary('GetTask', { id: 'task-nope' });
    let advanced = false;
    await writer.stream('SendStreamingMessage', message('work:1', 'm-2'), () => {
      if (advanced) return;
      advanced = true;
      void writer.control(peer.url, 'AdvanceClock', { ms: 1000 });
    });

    const started = await writer.unary('SendMessage', message('work:2', 'm-3'));
    if (!started.ok) throw new Error('SendMessage failed');
    const task = rec(rec(started.body).task).id as string;
    let paused: Promise<void> | undefined;
    const subscription = writer.stream('SubscribeToTask', { id: task }, () => {
      paused ??= (async () => {
        const pause = await writer.unary('PauseTask', { taskId: task, mode: 'interrupt_immediate' });
        if (!pause.ok) throw new Error('PauseTask failed');
        const token = rec(rec(pause.body).pause).resumeToken as string;
        await writer.unary('ResumeTask', { taskId: task, resumeToken: 'not-the-token' });
        await writer.unary('ResumeTask', { taskId: task, resumeToken: token });
        await writer.control(peer.url, 'AdvanceClock', { ms: 2000 });
      })();
    });
    await subscription;
    await paused;
    await writer.write(file, card);
  } finally {
    writer.close();
    await peer.close();
  }
}
