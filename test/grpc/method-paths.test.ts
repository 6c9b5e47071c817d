/**
 * The observer's reading of a gRPC call's path (src/grpc/method-paths.ts) names the same method as
 * the codec's table (src/grpc/methods.ts) for every path, and nothing for any other.
 */
import { describe, expect, it } from 'vitest';
import { V03_GRPC_METHODS, grpcMethodNameOfPath, grpcPathOf } from '../../src/grpc/method-paths.js';
import { GRPC_METHODS, GRPC_V03_METHODS, grpcMethodOfPath } from '../../src/grpc/methods.js';

describe('grpcMethodNameOfPath', () => {
  it('names each method of both services by its path, as the codec table does', () => {
    const names = Object.keys(GRPC_METHODS) as (keyof typeof GRPC_METHODS)[];
    expect(names).toHaveLength(14);
    for (const name of names) {
      const path = `/${GRPC_METHODS[name].service}/${name}`;
      expect(grpcMethodNameOfPath(path)).toBe(name);
      expect(grpcMethodOfPath(path)).toEqual({ name, method: GRPC_METHODS[name], version: '1.0' });
      expect(grpcPathOf(name, '1.0')).toBe(path);
    }
  });

  it("names each method of v0.3's services (a2a.v1, a2a.v1.pause) as its v1.0 method, with v0.3's messages", () => {
    const names = Object.keys(GRPC_V03_METHODS) as (keyof typeof GRPC_V03_METHODS)[];
    expect(names).toHaveLength(13);
    for (const v03 of names) {
      const service = ['PauseTask', 'ResumeTask', 'AwaitTaskResumption'].includes(v03)
        ? 'a2a.v1.pause.A2APauseService'
        : 'a2a.v1.A2AService';
      expect(GRPC_V03_METHODS[v03].service).toBe(service);
      const path = `/${service}/${v03}`;
      const name = V03_GRPC_METHODS[v03];
      expect(grpcMethodNameOfPath(path)).toBe(name);
      expect(grpcMethodOfPath(path)).toEqual({ name, method: GRPC_V03_METHODS[v03], version: '0.3' });
      expect(GRPC_V03_METHODS[v03].request.typeName).toMatch(/^a2a\.v1\./);
      expect(grpcPathOf(name, '0.3')).toBe(path);
    }
    expect(grpcMethodNameOfPath('/a2a.v1.A2AService/TaskSubscription')).toBe('SubscribeToTask');
    expect(grpcPathOf('ListTasks', '0.3')).toBeUndefined();
    expect(grpcPathOf('PauseTask', '0.3')).toBe('/a2a.v1.pause.A2APauseService/PauseTask');
  });

  it('names nothing for a path that is not exactly one of them', () => {
    for (const path of [
      '/lf.a2a.v1.A2AService/PauseTask',
      '/lf.a2a.v1.pause.A2APauseService/GetTask',
      '/lf.a2a.v1.A2AService/GetTask/',
      'lf.a2a.v1.A2AService/GetTask',
      '/lf.a2a.v1.A2AService/gettask',
      '/lf.a2a.v1.A2AService/constructor',
      '/a2a.v1.A2AService/ListTasks',
      '/a2a.v1.A2AService/SubscribeToTask',
      '/a2a.v1.A2AService/constructor',
      '/a2a.v1.A2AService/PauseTask',
      '/a2a.v1.pause.A2APauseService/GetTask',
      '/',
      '',
    ]) {
      expect(grpcMethodNameOfPath(path)).toBeUndefined();
      expect(grpcMethodOfPath(path)).toBeUndefined();
    }
  });
});
