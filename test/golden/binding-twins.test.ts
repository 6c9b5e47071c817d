/**
 * The golden scenarios recorded in another binding (`rest-*` over HTTP+JSON, docs/design.md §15;
 * `grpc-*` over gRPC, §16) say what their JSON-RPC twins say: the same receipts, in their own
 * `binding`, each line's chain links, signatures, spans, recorder times and entry numbers the
 * recording's own. Every A2A call of a twin's recording went over its binding.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TWINNED, TWIN_BINDINGS } from '../../scripts/golden/scenarios.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { GOLDEN, type Line, lines } from './golden-receipts.js';

/**
 * What a receipt says of the session. Left out: what each recording has of its own (chain links,
 * signatures, spans, recorder times, entry numbers) and the binding; a version-5 `outside` that
 * is null (the pause is in the log, as a version-3 twin says by having no `outside`). The peer's
 * times compare as text: a version-5 log holds each in its canonical text (docs/design.md §6,
 * "Peer times"), which is the text the JSON-RPC twins' peer wrote.
 */
function content(receipt: Line): Record<string, unknown> {
  const {
    prev: _prev,
    sig: _sig,
    span: _span,
    links: _links,
    suspension: _suspension,
    observedAt: _observedAt,
    entries: _entries,
    binding: _binding,
    ...rest
  } = receipt;
  if (rest.outside === null) delete rest.outside;
  return rest;
}

const receipts = (all: Line[]) => all.filter((l) => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt');

describe.each(TWIN_BINDINGS)('the $binding twins in golden/', ({ prefix, binding }) => {
  it.each(TWINNED)(`${prefix}%s has the receipts of its JSON-RPC twin, in binding ${binding}`, async (name) => {
    const base = receipts(await lines(name));
    const twin = receipts(await lines(`${prefix}${name}`));
    expect(base.length).toBeGreaterThan(0);
    expect(base.map((r) => r.binding)).toEqual(base.map(() => 'JSONRPC'));
    expect(twin.map((r) => r.binding)).toEqual(base.map(() => binding));
    expect(twin.map(content)).toEqual(base.map(content));
  });

  it.each(TWINNED)(`${prefix}%s made every A2A call over ${binding}`, async (name) => {
    const recording = await readRecording(join(GOLDEN, `${prefix}${name}`, 'recording.jsonl'));
    const calls = recording.entries.filter(
      (e) => e.kind === 'request' && !e.http.path.endsWith('/control') && !e.http.path.includes('agent-card'),
    );
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      if (binding === 'GRPC') expect(call.grpc, call.http.path).toBeDefined();
      else expect(call.http.path, call.http.path).toMatch(/^\/rest\//);
    }
  });
});
