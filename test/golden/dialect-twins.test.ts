/**
 * The golden scenarios recorded with the client speaking A2A v0.3 (`v03-*` over JSON-RPC,
 * `v03-rest-*` over HTTP+JSON under `/rest/v1/`; docs/design.md §4 "Two dialects", §14.10) say
 * what their v1.0 originals say, and the one session that mixes the dialects
 * (`mixed-dialect-pause-v03-resume-v10`: a pause asked with v0.3's `tasks/pause`, resumed with
 * v1.0's `ResumeTask`) is one pause.
 *
 * Compared: every Suspension, Resumption, Interruption and Continuation receipt, field by field,
 * in order. Left out, and why:
 * - what each recording has of its own, whatever its dialect: the chain links (`prev`, and the
 *   `suspension` / `interruption` hashes naming an earlier line of the same log), signatures
 *   (`sig`), spans (`span`, `links`, `interruptionSpan`), the recorder's times (`observedAt`) and
 *   entry numbers (`entries`);
 * - `binding`, which is checked on its own: `JSONRPC` for `v03-*`, `HTTP+JSON` for `v03-rest-*`;
 * - a version-5 `outside` that is null: the originals of the pause scenarios are logs of version 3,
 *   which say the same by having no `outside` (docs/design.md §6).
 * What each dialect owns — method names (`message/send`, `tasks/pause`), kebab states, `kind`
 * discriminators, `content` parts, the `/rest/v1/` routes, the absent `A2A-Version` — is in the
 * recording, never in a receipt (a receipt does not say which version carried it, §14.10): the
 * second test checks every A2A call of a twin's recording was v0.3. The peer's times, ids, prompt
 * and answer hashes, principals, causes and outcomes must all be equal.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIXED_DIALECT, V03_BINDINGS, V03_TWINNED } from '../../scripts/golden/scenarios.js';
import { V03_METHODS } from '../../src/protocol/methods.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { GOLDEN, type Line, lines } from './golden-receipts.js';

const RECEIPT_TYPES = ['SuspensionReceipt', 'ResumptionReceipt', 'InterruptionReceipt', 'ContinuationReceipt'];
const receipts = (all: Line[]) => all.filter((l) => RECEIPT_TYPES.includes(l.type));

/** What a receipt says of the session: everything but what the doc comment above leaves out. */
function content(receipt: Line): Record<string, unknown> {
  const {
    prev: _prev,
    sig: _sig,
    span: _span,
    links: _links,
    suspension: _suspension,
    interruption: _interruption,
    interruptionSpan: _interruptionSpan,
    observedAt: _observedAt,
    entries: _entries,
    binding: _binding,
    ...rest
  } = receipt;
  if (rest.outside === null) delete rest.outside;
  return rest;
}

/** The A2A calls of a recording: its requests but the control channel's and the agent card's. */
async function a2aCalls(scenario: string) {
  const recording = await readRecording(join(GOLDEN, scenario, 'recording.jsonl'));
  return recording.entries.filter(
    (e) => e.kind === 'request' && !e.http.path.endsWith('/control') && !e.http.path.includes('agent-card'),
  );
}

const methodOf = (body: unknown): unknown => (body as { method?: unknown } | undefined)?.method;

describe.each(V03_BINDINGS)('the A2A v0.3 twins in golden/ over $binding', ({ prefix, binding }) => {
  it.each(V03_TWINNED)(`${prefix}%s has the receipts of its v1.0 original, in binding ${binding}`, async (name) => {
    const base = receipts(await lines(name));
    const twin = receipts(await lines(`${prefix}${name}`));
    expect(base.length).toBeGreaterThan(0);
    expect(base.map((r) => r.binding)).toEqual(base.map(() => 'JSONRPC'));
    expect(twin.map((r) => r.binding)).toEqual(base.map(() => binding));
    expect(twin.map(content)).toEqual(base.map(content));
  });

  it.each(V03_TWINNED)(`${prefix}%s made every A2A call in v0.3 over ${binding}`, async (name) => {
    const calls = await a2aCalls(`${prefix}${name}`);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const where = `${call.http.method} ${call.http.path} ${String(methodOf(call.body))}`;
      expect(call.a2aVersion, where).toBe('0.3');
      expect(call.http.headers?.['a2a-version'], where).toBeUndefined();
      if (binding === 'HTTP+JSON') expect(call.http.path, where).toMatch(/^\/rest\/v1\//);
      else expect(Object.keys(V03_METHODS), where).toContain(methodOf(call.body));
    }
  });
});

describe(`the mixed-dialect session ${MIXED_DIALECT.name}`, () => {
  it('is one pause: one suspension, the resumption that closes it, the receipts of its v1.0 original', async () => {
    const mixed = receipts(await lines(MIXED_DIALECT.name));
    expect(mixed.map((r) => r.type)).toEqual(['SuspensionReceipt', 'ResumptionReceipt']);
    const [suspension, resumption] = mixed as [Line, Line];
    expect(resumption.taskId).toBe(suspension.taskId);
    expect(resumption.outcome).toBe('resumed');
    expect((resumption.links as { suspension: unknown }).suspension).toEqual(suspension.span);
    expect(mixed.map(content)).toEqual(receipts(await lines('caller-pause-finish-step')).map(content));
  });

  it('was asked in v0.3 and resumed in v1.0: each receipt cites the call of its own dialect', async () => {
    const [suspension, resumption] = receipts(await lines(MIXED_DIALECT.name)) as [Line, Line];
    const calls = await a2aCalls(MIXED_DIALECT.name);
    const cited = (receipt: Line) =>
      calls
        .filter((c) => (receipt.entries as number[]).includes(c.seq))
        .map((c) => [methodOf(c.body), c.a2aVersion ?? c.http.headers?.['a2a-version']]);
    expect(cited(suspension)).toEqual([['tasks/pause', '0.3']]);
    expect(cited(resumption)).toEqual([['ResumeTask', '1.0']]);
    // Both dialects spoke in the one recording, on the one task.
    const versions = new Set(calls.map((c) => c.a2aVersion ?? c.http.headers?.['a2a-version']));
    expect([...versions].sort()).toEqual(['0.3', '1.0']);
  });
});
