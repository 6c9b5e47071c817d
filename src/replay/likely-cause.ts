/**
 * @module replay/likely-cause
 * The likely cause of a drift, said first (docs/design.md §8): a short classification with its
 * evidence, drawn from the agent cards (recorded and live) and from what the live peer answered —
 * the pause extension missing, no `/control` channel, JSON-RPC served at another path, the
 * version header or the credentials refused — and from the interruptions the replay found lost
 * where the golden log shows them continued: a gate the live peer walked past. Pure: cards,
 * entries and receipt lines in, sentences out.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { referencePeerSettingsOf } from '../peer/agent-card.js';
import { PAUSE_EXTENSION_URI } from '../protocol/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { ATTR_RECORDING_ENTRY_SEQ, ATTR_TASK_STATE } from '../tracing/attributes.js';
import type { LostInterruptionEvent } from './derive-receipts.js';
import type { ExchangeDrift } from './drift.js';

const PAUSE_METHODS = new Set(['PauseTask', 'ResumeTask', 'AwaitTaskResumption']);

type Obj = { [key: string]: JsonValue };

function obj(value: JsonValue | undefined): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The path of each binding's interface URL in a card (`JSONRPC` → `/a2a/jsonrpc`). */
function interfacePaths(card: Obj): Map<string, string> {
  const paths = new Map<string, string>();
  const list = card.supportedInterfaces;
  const interfaces = Array.isArray(list) ? list : [];
  if (interfaces.length === 0 && typeof card.url === 'string')
    interfaces.push({ url: card.url, protocolBinding: 'JSONRPC' });
  for (const item of interfaces) {
    const i = obj(item);
    if (typeof i?.url !== 'string') continue;
    const binding = typeof i.protocolBinding === 'string' ? i.protocolBinding : 'JSONRPC';
    try {
      paths.set(binding, new URL(i.url).pathname.replace(/\/+$/, '') || '/');
    } catch {
      // not a URL: nothing to compare
    }
  }
  return paths;
}

function declaresPause(card: Obj): boolean {
  const extensions = obj(card.capabilities)?.extensions;
  return Array.isArray(extensions) && extensions.some((e) => obj(e)?.uri === PAUSE_EXTENSION_URI);
}

/** What differs between the recorded peer's card and the live one, as causes. */
export function cardCauses(recorded: JsonValue | undefined, live: JsonValue | undefined): string[] {
  const r = obj(recorded);
  if (!r) return [];
  const l = obj(live);
  if (!l) return ['agent card: the live peer serves no agent card at /.well-known/agent-card.json'];
  const causes: string[] = [];
  const recordedPaths = interfacePaths(r);
  const livePaths = interfacePaths(l);
  for (const [binding, path] of recordedPaths) {
    const now = livePaths.get(binding);
    if (now === undefined) causes.push(`binding: the recorded peer offered ${binding}, the live peer does not`);
    else if (now !== path)
      causes.push(
        `path mismatch: the recording was made against ${binding} at ${path}, the live peer serves it at ${now}`,
      );
  }
  if (declaresPause(r) && !declaresPause(l))
    causes.push(
      `pause extension missing: the live peer's card does not declare ${PAUSE_EXTENSION_URI} ` +
        '(the recorded one did): PauseTask and ResumeTask are likely to fail',
    );
  const before = referencePeerSettingsOf(r);
  const after = referencePeerSettingsOf(l);
  if (before && after) {
    const changed = (
      ['legacyPause', 'deterministic', 'seed', 'stepMs', 'bypassAskAfterMs', 'a2aVersion'] as const
    ).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    const describe = (k: (typeof changed)[number]): string =>
      `${k} recorded ${JSON.stringify(before[k]) ?? 'none'}, live ${JSON.stringify(after[k]) ?? 'none'}`;
    if (changed.length > 0) causes.push(`peer settings: ${changed.map(describe).join('; ')}`);
  }
  return causes;
}

/** What one answer says of the peer, as a likely cause (its kind, to say each once, and the sentence). */
function answerCause(entry: RecordingEntry, method: string | null): { key: string; cause: string } | undefined {
  const path = entry.http.path.split('?')[0] ?? '/';
  const status = entry.http.status ?? 0;
  const code = obj(obj(entry.body)?.error)?.code;
  const control = path === '/control' || path.endsWith('/control');
  if (control && (status === 404 || status === 403 || code === -32601)) {
    const answer = status === 404 || status === 403 ? `HTTP ${status}` : '-32601';
    return {
      key: 'control',
      cause:
        `no /control channel: the live peer answers ${answer} to ${method ?? 'a control call'}, ` +
        'so the clock cannot be advanced nor events fired',
    };
  }
  if (method !== null && PAUSE_METHODS.has(method) && code === -32601) {
    return {
      key: 'pause',
      cause:
        `pause extension missing: the live peer answers -32601 (method not found) to ${method}: ` +
        'it does not implement the pause extension',
    };
  }
  if (code === -32009)
    return { key: 'version', cause: 'version refused: the live peer answers -32009 to the A2A-Version header sent' };
  if (status === 401 || status === 403)
    return { key: 'auth', cause: `authentication refused: the live peer answers HTTP ${status} to ${method ?? path}` };
  if (status === 404 && method !== null)
    return { key: 'path', cause: `path mismatch: the live peer answers HTTP 404 to ${method} at ${path}` };
  return undefined;
}

/**
 * Causes read from the live answers (replayed entries, in the recording's identity). An answer
 * the recording shows too — the recorded answer at its seq says the same (the recorded peer
 * refused that version header, answered that 404) — is how the session went, never a cause.
 */
export function trafficCauses(replayed: readonly RecordingEntry[], recorded: readonly RecordingEntry[] = []): string[] {
  const methodOf = new Map<string, string>();
  const recordedAt = new Map<number, RecordingEntry>();
  for (const entry of recorded) if (entry.kind === 'response') recordedAt.set(entry.seq, entry);
  const causes = new Map<string, string>();
  for (const entry of replayed) {
    if (entry.kind === 'request') {
      const method = obj(entry.body)?.method;
      if (typeof method === 'string') methodOf.set(entry.xid, method);
      continue;
    }
    if (entry.kind !== 'response') continue;
    const method = methodOf.get(entry.xid) ?? null;
    const found = answerCause(entry, method);
    if (found === undefined || causes.has(found.key)) continue;
    const before = recordedAt.get(entry.seq);
    if (before !== undefined && before.xid === entry.xid && answerCause(before, method)?.key === found.key) continue;
    causes.set(found.key, found.cause);
  }
  return [...causes.values()];
}

/** The golden log's ContinuationReceipts by task: the 1-based line of the first one of each. */
function continuedTasks(golden: readonly string[]): Map<string, number> {
  const lines = new Map<string, number>();
  golden.forEach((text, i) => {
    if (!text.includes('"type":"ContinuationReceipt"')) return;
    try {
      const value = obj(JSON.parse(text) as JsonValue);
      if (value?.type === 'ContinuationReceipt' && typeof value.taskId === 'string' && !lines.has(value.taskId))
        lines.set(value.taskId, i + 1);
    } catch {
      // a line that does not parse names no task
    }
  });
  return lines;
}

/**
 * Causes read from the interruptions (docs/design.md §14.9): a gate the replay found walked past
 * (lost `bypassed`: the live peer moved the task on from INPUT_REQUIRED with no client message
 * naming it) where the golden log (`goldenFile`, its `golden` lines) shows the task's interruption
 * continued. Task ids are the recording's on both sides (replayed entries are mapped back).
 */
export function interruptionCauses(
  golden: readonly string[],
  lost: readonly LostInterruptionEvent[],
  goldenFile: string,
): string[] {
  const continued = continuedTasks(golden);
  const causes: string[] = [];
  for (const event of lost) {
    if (event.reason !== 'bypassed') continue;
    const line = continued.get(event.taskId);
    if (line === undefined) continue;
    const state = event.attributes[ATTR_TASK_STATE] ?? 'TASK_STATE_INPUT_REQUIRED';
    const seq = event.attributes[ATTR_RECORDING_ENTRY_SEQ];
    causes.push(
      `gate bypassed: the live peer moved task ${event.taskId} on from ${String(state)} with no client message ` +
        `naming it${seq === undefined ? '' : ` (seq ${String(seq)})`}: the gate was passed without a continuation, ` +
        `where the recording's answer continued it (${goldenFile}:${line})`,
    );
  }
  return causes;
}

/**
 * A cause read from the timing drift (docs/design.md §8, poll loops): the loops that ran out of
 * time, or that the peer went past, before it showed the state they ended in when recorded — a
 * peer slower or faster than the recorded one, not another behaviour.
 */
export function timingCauses(drift: readonly ExchangeDrift[]): string[] {
  const loops = drift.filter((d): d is Extract<ExchangeDrift, { type: 'timing' }> => d.type === 'timing');
  const first = loops[0];
  if (!first) return [];
  const n = loops.length;
  return [
    `timing: ${n} poll loop${n === 1 ? '' : 's'} ended in another state than recorded ` +
      `(seq ${first.expected.seq}: ${first.actualState} after ${first.replayedMs} ms, recorded ` +
      `${first.expectedState} after ${first.recordedMs} ms): the live peer works at another pace than ` +
      'the recorded one; what follows the loop may differ for that reason alone',
  ];
}
