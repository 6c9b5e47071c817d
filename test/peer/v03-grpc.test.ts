/**
 * The reference peer's A2A v0.3 gRPC edge (src/peer/v03-grpc.ts, docs/design.md §4, §16): calls
 * read from ProtoJSON of the `a2a.v1` messages into v1.0 params, and v1.0 answers written so the
 * v0.3 messages encode them — a paused task in the pause extension's superset messages
 * (`a2a.v1.pause`: TASK_STATE_PAUSED and its pause, which a stock `a2a.v1` decoder reads as state 9
 * and skips), push configs as named resources — and read back by the observer as they were.
 */
import { fromJson, toBinary, toJson, fromBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { GRPC_V03_METHODS } from '../../src/grpc/methods.js';
import * as v03 from '../../src/grpc/gen/a2a/v1/a2a_pb.js';
import { v03Result } from '../../src/observe/v03-dialect.js';
import { grpcEventToV03, grpcParamsFromV03, grpcResultToV03 } from '../../src/peer/v03-grpc.js';
import type { JsonValue } from '../../src/canonical/canonical-json.js';

/** `value` through the wire as `schema`: encoded, decoded, back to ProtoJSON. */
function roundTrip(schema: (typeof GRPC_V03_METHODS)[keyof typeof GRPC_V03_METHODS]['response'], value: unknown) {
  return toJson(schema, fromBinary(schema, toBinary(schema, fromJson(schema, value as JsonValue))));
}

const paused = {
  id: 't-1',
  contextId: 'c-1',
  status: {
    state: 'TASK_STATE_PAUSED',
    timestamp: '2026-01-01T00:00:00Z',
    pause: { reason: 'review', initiatedBy: 'PAUSE_INITIATOR_CLIENT', resumeToken: 'rt-1' },
  },
  history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ data: { ok: true } }], referenceTaskIds: ['t-0'] }],
};

describe('the v0.3 gRPC edge of the reference peer', () => {
  it('answers GetTask of a paused task in the superset Task: PAUSED with its pause, content parts', () => {
    const answer = grpcResultToV03('GetTask', paused);
    const wire = roundTrip(GRPC_V03_METHODS.GetTask.response, answer);
    expect(wire).toEqual({
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_PAUSED', timestamp: '2026-01-01T00:00:00Z', pause: paused.status.pause },
      history: [{ messageId: 'm', role: 'ROLE_USER', content: [{ data: { data: { ok: true } } }] }],
    });
    // The observer reads it back as the pause it is, pause and all.
    expect(v03Result('GetTask', wire, 'proto')).toMatchObject({
      status: { state: 'TASK_STATE_PAUSED', pause: { resumeToken: 'rt-1' } },
    });
    // A stock v0.3 decoder reads the same bytes: state 9, a number it has no name for; the pause skipped.
    const bytes = toBinary(
      GRPC_V03_METHODS.GetTask.response,
      fromJson(GRPC_V03_METHODS.GetTask.response, answer as JsonValue),
    );
    expect(toJson(v03.TaskSchema, fromBinary(v03.TaskSchema, bytes))).toMatchObject({
      status: { state: 9, timestamp: '2026-01-01T00:00:00Z' },
    });
  });

  it('ends a stream at input-required with final and spells CANCELED as the v0.3 proto does', () => {
    const update = grpcEventToV03({
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    });
    expect(roundTrip(GRPC_V03_METHODS.SendStreamingMessage.response, update)).toEqual({
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, final: true },
    });
    const canceled = grpcResultToV03('CancelTask', {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_CANCELED' },
    });
    expect(roundTrip(GRPC_V03_METHODS.CancelTask.response, canceled)).toMatchObject({
      status: { state: 'TASK_STATE_CANCELLED' },
    });
  });

  it('reads tasks and push configs by resource name, and writes push configs as named resources', () => {
    expect(grpcParamsFromV03('GetTask', { name: 'tasks/t-1', historyLength: 2 })).toEqual({
      id: 't-1',
      historyLength: 2,
    });
    expect(
      grpcParamsFromV03('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'hi' }] } }),
    ).toMatchObject({ message: { parts: [{ text: 'hi' }] } });
    const config = grpcResultToV03('GetTaskPushNotificationConfig', { taskId: 't-1', id: 'p-1', url: 'https://h/x' });
    expect(roundTrip(GRPC_V03_METHODS.GetTaskPushNotificationConfig.response, config)).toEqual({
      name: 'tasks/t-1/pushNotificationConfigs/p-1',
      pushNotificationConfig: { id: 'p-1', url: 'https://h/x' },
    });
  });
});
