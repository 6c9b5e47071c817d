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

/** A SendMessage request as the stock SDK's gRPC client encodes one (a text part, text/plain). */
export function grpcMessage(text: string, id: string): JsonValue {
  return {
    message: { messageId: id, role: 'ROLE_USER', parts: [{ text, mediaType: 'text/plain' }] },
    configuration: { returnImmediately: true },
  };
}

/**
 * Drives the session through `writer` (gRPC) and `httpUrl` (the peer's `/control`, over HTTP): a
 * unary send, a get, a get of an unknown task, a streamed send the peer's clock moves to its end,
 * then a pause, a wrong token and a resume while the task's subscription stream stays open across
 * PAUSED, to the task's end.
 */
export async function driveGrpcSession(writer: GrpcSessionWriter, httpUrl: string): Promise<void> {
  const sent = await writer.unary('SendMessage', grpcMessage('input', 'm-1'));
  if (!sent.ok) throw new Error(`SendMessage failed: ${JSON.stringify(sent.grpc)}`);
  const taskId = rec(rec(sent.body).task).id as string;
  await writer.unary('GetTask', { id: taskId });
  await writer.unary('GetTask', { id: 'task-nope' });
  let advanced = false;
  await writer.stream('SendStreamingMessage', grpcMessage('work:1', 'm-2'), () => {
    if (advanced) return;
    advanced = true;
    void writer.control(httpUrl, 'AdvanceClock', { ms: 1000 });
  });

  const started = await writer.unary('SendMessage', grpcMessage('work:2', 'm-3'));
  if (!started.ok) throw new Error('SendMessage failed');
  const task = rec(rec(started.body).task).id as string;
  let paused: Promise<void> | undefined;
  await writer.stream('SubscribeToTask', { id: task }, () => {
    paused ??= (async () => {
      const pause = await writer.unary('PauseTask', { taskId: task, mode: 'interrupt_immediate' });
      if (!pause.ok) throw new Error('PauseTask failed');
      const token = rec(rec(pause.body).pause).resumeToken as string;
      await writer.unary('ResumeTask', { taskId: task, resumeToken: 'not-the-token' });
      await writer.unary('ResumeTask', { taskId: task, resumeToken: token });
      await writer.control(httpUrl, 'AdvanceClock', { ms: 2000 });
    })();
  });
  await paused;
}

/** Records {@link driveGrpcSession} with the deterministic reference peer into `file`. */
export async function recordGrpcSession(file: string): Promise<void> {
  const peer = await startPeer({ deterministic: true });
  const writer = new GrpcSessionWriter(peer.grpcUrl);
  try {
    const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as JsonValue;
    await driveGrpcSession(writer, peer.url);
    await writer.write(file, card);
  } finally {
    writer.close();
    await peer.close();
  }
}
