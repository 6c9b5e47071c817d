/**
 * @module peer/read-transitions
 * Reads a peer transitions log (src/peer/transition-log.ts) back into typed lines, checking
 * every member: a bad line is an A2aReplayError naming the file, the line number and the field.
 * For comparing what a recorder derived with what the peer did.
 */
import { readFile } from 'node:fs/promises';
import { A2aReplayError, errorMessage } from '../errors.js';
import {
  type FieldIssue,
  FieldError,
  boolean,
  fail,
  formatIssue,
  integer,
  isRecord,
  nonEmptyString,
  object,
  oneOf,
  string,
  timestamp,
} from '../protocol/read.js';
import { readConditions } from '../protocol/parse-objects.js';
import { PAUSE_INITIATORS, PAUSE_MODES, RESUME_CAUSES, TASK_STATES } from '../protocol/types.js';
import {
  PEER_TRANSITIONS_TYPE,
  PEER_TRANSITIONS_VERSION,
  type PausedDetail,
  type PeerTransitionLine,
  type PeerTransitionsHeader,
  type TransitionCause,
} from './transition-log.js';

/** A whole transitions log. */
export interface PeerTransitions {
  header: PeerTransitionsHeader;
  /** In `seq` order (1, 2, 3, ...). */
  lines: PeerTransitionLine[];
}

const CAUSES: readonly TransitionCause[] = [
  ...RESUME_CAUSES,
  'message',
  'pause_request',
  'script',
  'completed',
  'failure',
  'canceled',
];
const ATTEMPT_METHODS = ['PauseTask', 'ResumeTask', 'AwaitTaskResumption'] as const;

function nullable<T>(value: unknown, read: (v: unknown) => T): T | null {
  return value === null ? null : read(value);
}

function readHeader(value: unknown): PeerTransitionsHeader {
  const r = object(value, '$');
  if (r.type !== PEER_TRANSITIONS_TYPE) fail('type', JSON.stringify(PEER_TRANSITIONS_TYPE), r.type);
  if (r.version !== PEER_TRANSITIONS_VERSION) fail('version', String(PEER_TRANSITIONS_VERSION), r.version);
  const peer = object(r.peer, 'peer');
  return {
    type: PEER_TRANSITIONS_TYPE,
    version: PEER_TRANSITIONS_VERSION,
    startedAt: timestamp(r.startedAt, 'startedAt'),
    tool: string(r.tool, 'tool'),
    peer: {
      deterministic: boolean(peer.deterministic, 'peer.deterministic'),
      seed: integer(peer.seed, 'peer.seed', 0),
      stepMs: integer(peer.stepMs, 'peer.stepMs', 1),
      legacyPause: boolean(peer.legacyPause, 'peer.legacyPause'),
      maxTasks: integer(peer.maxTasks, 'peer.maxTasks', 1),
    },
  };
}

function readPaused(value: unknown): PausedDetail {
  const r = object(value, 'pause');
  return {
    reason: nullable(r.reason, (v) => string(v, 'pause.reason')),
    mode: nullable(r.mode, (v) => oneOf(v, 'pause.mode', PAUSE_MODES)),
    conditions: nullable(r.conditions, (v) => readConditions(v, 'pause.conditions')),
    pausedUntil: nullable(r.pausedUntil, (v) => timestamp(v, 'pause.pausedUntil')),
  };
}

function readLine(value: unknown, seq: number): PeerTransitionLine {
  const r = object(value, '$');
  if (r.seq !== seq) fail('seq', `${seq} (lines are numbered 1, 2, 3, ... in order)`, r.seq);
  const at = timestamp(r.at, 'at');
  const taskId = nonEmptyString(r.taskId, 'taskId');
  switch (r.event) {
    case 'transition':
      return {
        event: 'transition',
        seq,
        at,
        taskId,
        contextId: string(r.contextId, 'contextId'),
        from: nullable(r.from, (v) => oneOf(v, 'from', TASK_STATES)),
        to: oneOf(r.to, 'to', TASK_STATES),
        cause: oneOf(r.cause, 'cause', CAUSES),
        initiator: nullable(r.initiator, (v) => oneOf(v, 'initiator', PAUSE_INITIATORS)),
        principal: nullable(r.principal, (v) => string(v, 'principal')),
        method: nullable(r.method, (v) => string(v, 'method')),
        resumeTokenHash: nullable(r.resumeTokenHash, (v) => string(v, 'resumeTokenHash')),
        pause: nullable(r.pause, readPaused),
      };
    case 'rejected':
      return {
        event: 'rejected',
        seq,
        at,
        taskId,
        contextId: nullable(r.contextId, (v) => string(v, 'contextId')),
        method: oneOf(r.method, 'method', ATTEMPT_METHODS),
        principal: nullable(r.principal, (v) => string(v, 'principal')),
        state: nullable(r.state, (v) => oneOf(v, 'state', TASK_STATES)),
        errorCode: integer(r.errorCode, 'errorCode'),
        reason: string(r.reason, 'reason'),
        resumeTokenHash: nullable(r.resumeTokenHash, (v) => string(v, 'resumeTokenHash')),
      };
    case 'evicted':
      return {
        event: 'evicted',
        seq,
        at,
        taskId,
        contextId: string(r.contextId, 'contextId'),
        state: oneOf(r.state, 'state', TASK_STATES),
      };
    default:
      return fail('event', '"transition", "rejected" or "evicted"', r.event);
  }
}

/** Parses the text of a transitions log; `source` names it in errors. */
export function parsePeerTransitions(text: string, source = 'transitions'): PeerTransitions {
  const rows = text.split('\n');
  if (rows.at(-1) === '') rows.pop();
  let header: PeerTransitionsHeader | undefined;
  const lines: PeerTransitionLine[] = [];
  for (const [i, row] of rows.entries()) {
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(row) as unknown;
    } catch (error) {
      const why = error instanceof Error ? error.message : 'not valid JSON';
      throw new A2aReplayError('RECORDING_MALFORMED', `${where}: not a JSON line: ${why}`);
    }
    try {
      if (i === 0) header = readHeader(value);
      else lines.push(readLine(value, i));
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      const issue: FieldIssue = error.issue;
      const what = i === 0 ? 'the header' : isRecord(value) ? `the ${String(value.event)} line` : 'the line';
      throw new A2aReplayError('RECORDING_MALFORMED', `${where}: ${what}: ${formatIssue(issue)}`);
    }
  }
  if (!header) throw new A2aReplayError('RECORDING_MALFORMED', `${source}: empty (no header line)`);
  return { header, lines };
}

/** Reads and checks the transitions log at `path`. */
export async function readPeerTransitions(path: string): Promise<PeerTransitions> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const why = errorMessage(error);
    throw new A2aReplayError('IO_FAILED', `cannot read the transitions log ${path}: ${why}`, { cause: error });
  }
  return parsePeerTransitions(text, path);
}
