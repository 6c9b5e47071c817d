/**
 * The pause extension's superset messages (proto/lf/a2a/v1/pause.proto) are wire-compatible with
 * lf.a2a.v1 (docs/design.md §16): every field of the released message is there with the same
 * number, name and type, the released TaskState values keep their numbers, and a superset
 * answer decodes with the released schema. So are v0.3's (proto/a2a/v1/pause.proto) with a2a.v1
 * (docs/design.md §4).
 */
import { create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import {
  ListTasksResponseSchema as BaseListTasksResponse,
  SendMessageResponseSchema as BaseSendMessageResponse,
  StreamResponseSchema as BaseStreamResponse,
  TaskSchema as BaseTask,
  TaskStateSchema as BaseTaskState,
  TaskStatusSchema as BaseTaskStatus,
  TaskStatusUpdateEventSchema as BaseTaskStatusUpdateEvent,
} from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import {
  ListTasksResponseSchema,
  PauseInitiator,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  TaskStateSchema,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
} from '../../src/grpc/gen/lf/a2a/v1/pause_pb.js';
import * as v03 from '../../src/grpc/gen/a2a/v1/a2a_pb.js';
import * as v03Pause from '../../src/grpc/gen/a2a/v1/pause_pb.js';

function shapeOf(field: DescField): string {
  switch (field.fieldKind) {
    case 'scalar':
      return `scalar ${field.scalar}`;
    case 'enum':
      return `enum ${field.enum.name}`;
    case 'message':
      return `message ${field.message.name}`;
    case 'list': {
      const item =
        field.listKind === 'scalar' ? field.scalar : field.listKind === 'enum' ? field.enum.name : field.message.name;
      return `list ${field.listKind} ${item}`;
    }
    case 'map':
      return `map ${field.mapKey}`;
  }
}

const PAIRS: [DescMessage, DescMessage][] = [
  [BaseTaskStatus, TaskStatusSchema],
  [BaseTask, TaskSchema],
  [BaseTaskStatusUpdateEvent, TaskStatusUpdateEventSchema],
  [BaseStreamResponse, StreamResponseSchema],
  [BaseSendMessageResponse, SendMessageResponseSchema],
  [BaseListTasksResponse, ListTasksResponseSchema],
];

describe('pause.proto superset messages', () => {
  it.each(PAIRS.map(([base, superset]) => [base.typeName, base, superset] as const))(
    'keeps every field of %s',
    (_name, base, superset) => {
      for (const field of base.fields) {
        const same = superset.fields.find((f) => f.number === field.number);
        expect(same?.name, `${superset.typeName} field ${field.number}`).toBe(field.name);
        expect(same && shapeOf(same), `${superset.typeName}.${field.name}`).toBe(shapeOf(field));
        expect(same?.oneof?.name).toBe(field.oneof?.name);
      }
    },
  );

  it('adds only TaskStatus.pause (field 4) to the released fields', () => {
    const added = PAIRS.flatMap(([base, superset]) =>
      superset.fields
        .filter((f) => !base.fields.some((b) => b.number === f.number))
        .map((f) => `${superset.name}.${f.name}=${f.number}`),
    );
    expect(added).toEqual(['TaskStatus.pause=4']);
  });

  it('keeps the released TaskState numbers and adds TASK_STATE_PAUSED = 9', () => {
    for (const value of BaseTaskState.values) {
      expect(TaskStateSchema.values.find((v) => v.number === value.number)?.name).toBe(value.name);
    }
    expect(TaskStateSchema.values.map((v) => v.number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(TaskState.PAUSED).toBe(9);
  });

  it('encodes a paused task that the released schema decodes, pause field skipped', () => {
    const task = create(TaskSchema, {
      id: 't-1',
      contextId: 'c-1',
      status: {
        state: TaskState.PAUSED,
        pause: { initiatedBy: PauseInitiator.CLIENT, resumeToken: 'tok', resumable: true },
      },
    });
    const released = fromBinary(BaseTask, toBinary(TaskSchema, task));
    expect(released.id).toBe('t-1');
    expect(released.status?.state).toBe(9);
    expect(toJson(BaseTask, released)).toEqual({ id: 't-1', contextId: 'c-1', status: { state: 9 } });
    expect(toJson(TaskSchema, fromBinary(TaskSchema, toBinary(TaskSchema, task)))).toEqual({
      id: 't-1',
      contextId: 'c-1',
      status: {
        state: 'TASK_STATE_PAUSED',
        pause: { initiatedBy: 'PAUSE_INITIATOR_CLIENT', resumeToken: 'tok', resumable: true },
      },
    });
  });
});

const V03_PAIRS: [DescMessage, DescMessage][] = [
  [v03.TaskStatusSchema, v03Pause.TaskStatusSchema],
  [v03.TaskSchema, v03Pause.TaskSchema],
  [v03.TaskStatusUpdateEventSchema, v03Pause.TaskStatusUpdateEventSchema],
  [v03.StreamResponseSchema, v03Pause.StreamResponseSchema],
  [v03.SendMessageResponseSchema, v03Pause.SendMessageResponseSchema],
];

describe("v0.3's pause.proto superset messages (package a2a.v1.pause)", () => {
  it.each(V03_PAIRS.map(([base, superset]) => [base.typeName, base, superset] as const))(
    'keeps every field of %s, json names included',
    (_name, base, superset) => {
      for (const field of base.fields) {
        const same = superset.fields.find((f) => f.number === field.number);
        expect(same?.name, `${superset.typeName} field ${field.number}`).toBe(field.name);
        expect(same?.jsonName).toBe(field.jsonName);
        expect(same && shapeOf(same), `${superset.typeName}.${field.name}`).toBe(shapeOf(field));
        expect(same?.oneof?.name).toBe(field.oneof?.name);
      }
    },
  );

  it('adds only TaskStatus.pause (field 4), and TASK_STATE_PAUSED = 9 to the released states', () => {
    const added = V03_PAIRS.flatMap(([base, superset]) =>
      superset.fields
        .filter((f) => !base.fields.some((b) => b.number === f.number))
        .map((f) => `${superset.name}.${f.name}=${f.number}`),
    );
    expect(added).toEqual(['TaskStatus.pause=4']);
    for (const value of v03.TaskStateSchema.values) {
      expect(v03Pause.TaskStateSchema.values.find((v) => v.number === value.number)?.name).toBe(value.name);
    }
    expect(v03Pause.TaskState.PAUSED).toBe(9);
    expect(v03Pause.TaskState.CANCELLED).toBe(5);
  });

  it('encodes a paused task that the released a2a.v1 schema decodes, pause field skipped', () => {
    const task = create(v03Pause.TaskSchema, {
      id: 't-1',
      status: {
        state: v03Pause.TaskState.PAUSED,
        pause: { initiatedBy: v03Pause.PauseInitiator.CLIENT, resumeToken: 'tok', resumable: true },
      },
    });
    const released = fromBinary(v03.TaskSchema, toBinary(v03Pause.TaskSchema, task));
    expect(toJson(v03.TaskSchema, released)).toEqual({ id: 't-1', status: { state: 9 } });
  });
});
