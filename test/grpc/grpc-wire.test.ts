/**
 * How the recorder reads a gRPC call's bytes on the side (src/grpc/grpc-wire.ts, docs/design.md
 * §16): messages split from their 5-byte prefixes however the chunks fall, compressed ones
 * decoded, `grpc-timeout`, `grpc-message` and `grpc-status-details-bin` read.
 */
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { GetTaskRequestSchema } from '../../src/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { grpcError } from '../../src/grpc/grpc-status.js';
import {
  GrpcFrameReader,
  grpcMessageHeader,
  grpcMessageText,
  grpcTimeoutMs,
  readGrpcMessage,
  statusDetailsJson,
} from '../../src/grpc/grpc-wire.js';

function framed(message: Uint8Array, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(message.byteLength, 1);
  return Buffer.concat([prefix, message]);
}

const getTask = toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: 'task-1' }));

describe('the gRPC wire as the recorder reads it', () => {
  it('splits messages across chunks, byte by byte or several in one chunk', () => {
    const bytes = Buffer.concat([framed(getTask), framed(getTask)]);
    const reader = new GrpcFrameReader(1024);
    const bySingleBytes = [...bytes].flatMap((b) => reader.push(Buffer.from([b])));
    expect(bySingleBytes.map((f) => f.message.equals(Buffer.from(getTask)))).toEqual([true, true]);
    expect(new GrpcFrameReader(1024).push(bytes)).toHaveLength(2);
    expect(() => new GrpcFrameReader(4).push(framed(getTask))).toThrow(/over the 4-byte observation cap/);
  });

  it('decodes a gzip-compressed message and names one it cannot read', () => {
    const zipped = { compressed: true, message: gzipSync(getTask) };
    expect(readGrpcMessage(zipped, GetTaskRequestSchema, 'gzip', 1024)).toEqual({ ok: true, json: { id: 'task-1' } });
    expect(readGrpcMessage(zipped, GetTaskRequestSchema, 'snappy', 1024)).toMatchObject({
      ok: false,
      why: expect.stringContaining('grpc-encoding snappy') as unknown,
    });
    expect(
      readGrpcMessage({ compressed: false, message: Buffer.from([0xff]) }, GetTaskRequestSchema, undefined, 1024),
    ).toMatchObject({ ok: false, why: expect.stringContaining('not a valid lf.a2a.v1.GetTaskRequest') as unknown });
  });

  it('reads grpc-timeout in milliseconds and grpc-message percent-decoded', () => {
    expect(grpcTimeoutMs('1500m')).toBe(1500);
    expect(grpcTimeoutMs('2S')).toBe(2000);
    expect(grpcTimeoutMs('1M')).toBe(60_000);
    expect(grpcTimeoutMs('soon')).toBeUndefined();
    expect(grpcMessageText(grpcMessageHeader('task é: 100%'))).toBe('task é: 100%');
    expect(grpcMessageHeader('a/b: c')).toBe('a/b: c');
    expect(grpcMessageText('50%zz done')).toBe('50%zz done');
  });

  it('decodes grpc-status-details-bin to google.rpc.Status with its ErrorInfo', () => {
    const answer = grpcError('RESUME_TOKEN_MISMATCH', 'wrong token', { taskId: 't-1' });
    const base64 = Buffer.from(answer.statusDetails).toString('base64').replace(/=+$/, '');
    expect(statusDetailsJson(base64)).toEqual({
      code: 9,
      message: 'wrong token',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RESUME_TOKEN_MISMATCH',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't-1' },
        },
      ],
    });
    expect(statusDetailsJson('AAAA')).toMatchObject({ undecodable: expect.any(String) as unknown });
  });
});
