/**
 * The `grpc-timeout` replay sends for a recorded gRPC request (docs/design.md §16): the recorded
 * header as it was when it says the recorded `grpc.timeoutMs`, else that time-out written in the
 * finest unit that holds it (rounded up, never shorter), and none when none was recorded.
 */
import { describe, expect, it } from 'vitest';
import { grpcTimeoutMs } from '../../src/grpc/grpc-wire.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { grpcTimeoutHeader, openGrpcChannel, replayMetadata, replayTimeout } from '../../src/replay/grpc-exchange.js';
import { planReplay } from '../../src/replay/lanes.js';

const http = (headers: Record<string, string>) => ({ method: 'POST', path: '/lf.a2a.v1.A2AService/GetTask', headers });

describe('grpcTimeoutHeader', () => {
  it('writes a time-out exactly in the finest unit that holds it in 8 digits', () => {
    expect(grpcTimeoutHeader(7000)).toBe('7000000u');
    expect(grpcTimeoutHeader(0.5)).toBe('500000n');
    expect(grpcTimeoutHeader(250_000)).toBe('250000m');
    expect(grpcTimeoutHeader(3_600_000_000)).toBe('3600000S');
    expect(grpcTimeoutHeader(360_000_000_000)).toBe('6000000M');
    expect(grpcTimeoutHeader(0)).toBe('0n');
    for (const ms of [7000, 250_000, 3_600_000_000]) expect(grpcTimeoutMs(grpcTimeoutHeader(ms))).toBe(ms);
  });

  it('rounds a time-out no unit holds exactly up, and refuses what no header can say', () => {
    expect(grpcTimeoutHeader(100_000_000.5)).toBe('100001S');
    expect(grpcTimeoutHeader(123_456.789)).toBe('123457m');
    expect(grpcTimeoutHeader(-1)).toBeUndefined();
    expect(grpcTimeoutHeader(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(grpcTimeoutHeader(1e8 * 3_600_000)).toBeUndefined();
  });
});

describe('replayTimeout', () => {
  it('sends the recorded header when it says the recorded time-out', () => {
    expect(replayTimeout({ http: http({ 'grpc-timeout': '7S' }), grpc: { timeoutMs: 7000 } })).toBe('7S');
  });

  it('writes the recorded time-out when the header is missing or says another one', () => {
    expect(replayTimeout({ http: http({}), grpc: { timeoutMs: 7000 } })).toBe('7000000u');
    expect(replayTimeout({ http: http({ 'grpc-timeout': '9S' }), grpc: { timeoutMs: 7000 } })).toBe('7000000u');
  });

  it('sends none for a call recorded without one, whatever its headers say', () => {
    expect(replayTimeout({ http: http({ 'grpc-timeout': '7S' }), grpc: {} })).toBeUndefined();
  });

  it('puts it in the metadata beside the recorded keys, other grpc-* keys still left out', () => {
    const metadata = replayMetadata({ 'a2a-version': '1.0', 'grpc-timeout': '1S', 'grpc-encoding': 'gzip' }, '7S');
    expect(metadata.getMap()).toEqual({ 'a2a-version': '1.0', 'grpc-timeout': '7S' });
    expect(replayMetadata({ 'grpc-timeout': '1S' }).getMap()).toEqual({});
  });
});

describe('openGrpcChannel', () => {
  it('refuses a recorded time-out no grpc-timeout can carry, naming its line and seq, before sending anything', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const path = '/lf.a2a.v1.A2AService/GetTask';
    const entries: RecordingEntry[] = [
      {
        seq: 1,
        at,
        xid: 'x-1',
        kind: 'request',
        http: { method: 'POST', path },
        body: { id: 't-1' },
        grpc: { timeoutMs: -5 },
      },
      { seq: 2, at, xid: 'x-1', kind: 'response', http: { method: 'POST', path, status: 200 }, grpc: { status: 5 } },
    ];
    expect(() => openGrpcChannel(planReplay(entries), '127.0.0.1:1')).toThrow(
      'line 2 (seq 1): grpc.timeoutMs -5 is no time-out a grpc-timeout header can carry',
    );
  });
});
