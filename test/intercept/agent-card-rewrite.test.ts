/**
 * The card rewrite of the recorder and the mock (src/intercept/agent-card-rewrite.ts) for a gRPC
 * interface, whose `url` is a `HOST:PORT` target (docs/design.md §16), not an http URL.
 */
import { describe, expect, it } from 'vitest';
import {
  cardGrpcTarget,
  foreignInterfaceUrls,
  rewriteAgentCard,
  uncarriedBindings,
} from '../../src/intercept/agent-card-rewrite.js';
import { grpcInterfaceOf } from '../../src/replay/run-recording.js';

const upstream = new URL('http://127.0.0.1:4000');
const proxy = new URL('http://127.0.0.1:5000');

function card(...urls: string[]): Record<string, unknown> {
  return { name: 'a', supportedInterfaces: urls.map((url) => ({ url, protocolBinding: 'GRPC' })) };
}

function urlsOf(value: Record<string, unknown> | undefined): string[] {
  return ((value?.supportedInterfaces ?? []) as { url: string }[]).map((i) => i.url);
}

describe('gRPC interface targets in an agent card', () => {
  it("moves a target on the upstream's host and port to the proxy's, localhost and 127.0.0.1 alike", () => {
    expect(urlsOf(rewriteAgentCard(card('127.0.0.1:4000', 'localhost:4000'), upstream, proxy))).toEqual([
      '127.0.0.1:5000',
      '127.0.0.1:5000',
    ]);
  });

  it('leaves a target on another host or port, and names it as foreign', () => {
    const other = card('127.0.0.1:4001', 'agent.example.com:443');
    expect(rewriteAgentCard(other, upstream, proxy)).toBeUndefined();
    expect(foreignInterfaceUrls(other, upstream)).toEqual(['127.0.0.1:4001', 'agent.example.com:443']);
    expect(foreignInterfaceUrls(card('127.0.0.1:4000'), upstream)).toEqual([]);
  });

  it("moves every target to the mock's own", () => {
    const moved = rewriteAgentCard(card('agent.example.com:443'), upstream, proxy, { everyUrl: true });
    expect(urlsOf(moved)).toEqual(['127.0.0.1:5000']);
  });

  it('reads the default port of an https upstream', () => {
    const secure = new URL('https://agent.example.com/a2a');
    expect(urlsOf(rewriteAgentCard(card('agent.example.com:443'), secure, proxy))).toEqual(['127.0.0.1:5000']);
  });

  it('moves a target on the gRPC upstream to the proxy, and no longer names it as foreign', () => {
    const grpc = { hostname: '127.0.0.1', port: '4001' };
    const split = card('localhost:4001', 'agent.example.com:443');
    expect(urlsOf(rewriteAgentCard(split, upstream, proxy, { grpc }))).toEqual([
      '127.0.0.1:5000',
      'agent.example.com:443',
    ]);
    expect(foreignInterfaceUrls(split, upstream, grpc)).toEqual(['agent.example.com:443']);
    expect(cardGrpcTarget(split)).toBe('localhost:4001');
  });

  it('names the interfaces of a binding the recorder does not carry', () => {
    const mixed = {
      supportedInterfaces: [
        { url: 'http://127.0.0.1:4000/', protocolBinding: 'JSONRPC' },
        { url: '127.0.0.1:4000', protocolBinding: 'GRPC' },
        { url: 'ws://127.0.0.1:4000/ws', protocolBinding: 'WEBSOCKET' },
      ],
    };
    expect(uncarriedBindings(mixed)).toEqual(['WEBSOCKET ws://127.0.0.1:4000/ws']);
    expect(cardGrpcTarget(mixed)).toBe('127.0.0.1:4000');
  });

  it("finds a v0.3 card's gRPC target in its additionalInterfaces or its own url", () => {
    const listed = {
      protocolVersion: '0.3.0',
      url: 'http://127.0.0.1:4000/rpc',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: '127.0.0.1:4001', transport: 'GRPC' }],
    };
    expect(cardGrpcTarget(listed)).toBe('127.0.0.1:4001');
    expect(grpcInterfaceOf(listed)).toBe('127.0.0.1:4001');
    const preferred = { protocolVersion: '0.3.0', url: '127.0.0.1:4002', preferredTransport: 'GRPC' };
    expect(cardGrpcTarget(preferred)).toBe('127.0.0.1:4002');
    expect(grpcInterfaceOf(preferred)).toBe('127.0.0.1:4002');
  });
});
