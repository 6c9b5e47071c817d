/**
 * @module record/grpc-target
 * A recorder's gRPC side (docs/design.md §16): where gRPC calls go, and saying as a warning, once
 * per kind, the calls the recorder refuses to forward.
 */
import { cardGrpcTarget } from '../intercept/agent-card-rewrite.js';
import type { RecorderWarn } from './warnings.js';

/**
 * Where gRPC calls go: `grpcUpstream`, else the GRPC interface of the upstream's card, else the
 * upstream's host and port; the last two over TLS when the upstream is `https://`.
 */
export function grpcUpstreamOf(given: string | undefined, upstream: string, agentCard: unknown): string {
  if (given !== undefined) return given;
  const url = new URL(upstream);
  const secure = url.protocol === 'https:';
  const target = cardGrpcTarget(agentCard) ?? `${url.hostname}:${url.port || (secure ? '443' : '80')}`;
  return secure ? `https://${target}` : target;
}

/** Says a refused gRPC call, the first of each kind (UNIMPLEMENTED, UNAVAILABLE). */
export function grpcRefusalReporter(warn: RecorderWarn): (kind: string, message: string) => void {
  const told = new Set<string>();
  return (kind, message) => {
    if (told.has(kind)) return;
    told.add(kind);
    warn(`gRPC call refused: ${message}`);
  };
}
