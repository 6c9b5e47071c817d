/**
 * The observer's reading of a gRPC call's path (src/grpc/method-paths.ts) names the same method as
 * the codec's table (src/grpc/methods.ts) for every path, and nothing for any other.
 */
import { describe, expect, it } from 'vitest';
import { grpcMethodNameOfPath } from '../../src/grpc/method-paths.js';
import { GRPC_METHODS, grpcMethodOfPath } from '../../src/grpc/methods.js';

describe('grpcMethodNameOfPath', () => {
  it('names each method of both services by its path, as the codec table does', () => {
    const names = Object.keys(GRPC_METHODS) as (keyof typeof GRPC_METHODS)[];
    expect(names).toHaveLength(14);
    for (const name of names) {
      const path = `/${GRPC_METHODS[name].service}/${name}`;
      expect(grpcMethodNameOfPath(path)).toBe(name);
      expect(grpcMethodOfPath(path)).toEqual({ name, method: GRPC_METHODS[name] });
    }
  });

  it('names nothing for a path that is not exactly one of them', () => {
    for (const path of [
      '/lf.a2a.v1.A2AService/PauseTask',
      '/lf.a2a.v1.pause.A2APauseService/GetTask',
      '/lf.a2a.v1.A2AService/GetTask/',
      'lf.a2a.v1.A2AService/GetTask',
      '/lf.a2a.v1.A2AService/gettask',
      '/lf.a2a.v1.A2AService/constructor',
      '/',
      '',
    ]) {
      expect(grpcMethodNameOfPath(path)).toBeUndefined();
      expect(grpcMethodOfPath(path)).toBeUndefined();
    }
  });
});
