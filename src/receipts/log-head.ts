/**
 * @module receipts/log-head
 * The head of a log or series kept outside it (docs/design.md §6, "The head of a series"): the
 * witness file holds the latest checkpoint and, before it, a `LogHead` line naming the log that
 * checkpoint belongs to (its series, its position, its header's hash), signed as the checkpoint
 * is; so the head names a later log of a series even when that log was not given.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { canonicalJson, sha256Prefixed } from '../canonical/canonical-json.js';
import { parseJsonText } from '../canonical/parse-json.js';
import { A2aReplayError } from '../errors.js';
import { formatIssue } from '../protocol/read.js';
import { type Keyring, type ReceiptKey, decodeBase64url } from './keys.js';
import { pae } from './pae.js';
import { readReceiptLogLine } from './read-line.js';
import type { Checkpoint, CheckpointSignature } from './types.js';
import { anchorSignatureFailure } from './verify-failure.js';

/** The payload type a `LogHead` signature covers: never the same bytes as a receipt's or checkpoint's. */
export const LOG_HEAD_PAYLOAD_TYPE = 'application/vnd.a2a-replay.head.v1+json';

/** Which log a checkpoint kept outside belongs to, signed by the log's checkpoint key. */
export interface LogHead {
  type: 'LogHead';
  /** The series' id (a first log's own name in origins, docs/design.md §6). */
  series: string;
  /** The log's position in its series (1 for a log that continues none). */
  position: number;
  /** The hash of the log's header line. */
  header: string;
  /** The hash of the checkpoint line that follows this line in the file. */
  checkpoint: string;
  sig: CheckpointSignature;
}

/** A head as read from a file: its checkpoint, and which log it says it belongs to when it says. */
export interface SeriesHead {
  /** The file it was read from (for messages). */
  source: string;
  checkpoint: Checkpoint;
  /** The `LogHead` line before the checkpoint; null in a file holding the checkpoint alone. */
  head: LogHead | null;
}

/** The signed `LogHead` line for the checkpoint line `checkpointText` of a log, as canonical text. */
export function logHeadText(
  fields: { series: string; position: number; header: string },
  checkpointText: string,
  key: ReceiptKey,
): string {
  const body: Omit<LogHead, 'sig'> = { type: 'LogHead', ...fields, checkpoint: sha256Prefixed(checkpointText) };
  const input = pae(LOG_HEAD_PAYLOAD_TYPE, canonicalJson(body));
  const sig: CheckpointSignature = key.hasEd25519Secret
    ? { alg: 'ed25519', kid: key.kid, value: Buffer.from(key.signEd25519(input)).toString('base64url') }
    : { alg: 'hmac-sha256', kid: key.kid, value: key.mac(input).toString('base64url') };
  return canonicalJson({ ...body, sig });
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function readLogHead(value: unknown, where: string): LogHead {
  const v = value as Partial<Record<keyof LogHead, unknown>> | null;
  const sig = v?.sig as Partial<CheckpointSignature> | undefined;
  const ok =
    v !== null &&
    typeof v === 'object' &&
    v.type === 'LogHead' &&
    isText(v.series) &&
    typeof v.position === 'number' &&
    Number.isInteger(v.position) &&
    v.position >= 1 &&
    isText(v.header) &&
    isText(v.checkpoint) &&
    typeof sig === 'object' &&
    sig !== null &&
    (sig.alg === 'ed25519' || sig.alg === 'hmac-sha256') &&
    isText(sig.kid) &&
    isText(sig.value) &&
    Object.keys(v).length === 6;
  if (!ok) throw new A2aReplayError('RECEIPT_INVALID', `${where}: not a LogHead line`);
  return value as LogHead;
}

/**
 * Reads a head kept outside a log: a checkpoint file (`record --witness FILE`), whose last
 * non-empty line is a Checkpoint and the line before it, when there is one, the `LogHead` naming
 * its log. What is not so is an error naming the file and line.
 */
export async function readSeriesHead(path: string): Promise<SeriesHead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new A2aReplayError('IO_FAILED', `cannot read checkpoint file ${path}: ${code}`, { cause });
  }
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const last = lines.at(-1);
  if (last === undefined) throw new A2aReplayError('RECEIPT_INVALID', `${path}: no checkpoint line`);
  const parsed = readReceiptLogLine(parseJsonText(last, path));
  if (!parsed.ok) throw new A2aReplayError('RECEIPT_INVALID', `${path}: ${formatIssue(parsed.issue)}`);
  if (parsed.value.type !== 'Checkpoint')
    throw new A2aReplayError('RECEIPT_INVALID', `${path}: the last line is a ${parsed.value.type}, not a Checkpoint`);
  const before = lines.at(-2);
  const head = before === undefined ? null : readLogHead(parseJsonText(before, path), `${path}:${lines.length - 1}`);
  if (head !== null && head.checkpoint !== sha256Prefixed(last))
    throw new A2aReplayError(
      'RECEIPT_INVALID',
      `${path}: its LogHead names checkpoint ${head.checkpoint}, not the checkpoint after it`,
    );
  return { source: path, checkpoint: parsed.value, head };
}

/** Why the head's signatures (its checkpoint's, its LogHead's) do not check with `keyring`; null when they do. */
export function headSignatureProblem(head: SeriesHead, keyring: Keyring): string | null {
  const failure = anchorSignatureFailure(head.checkpoint, keyring);
  if (failure !== null) return failure.message;
  const line = head.head;
  if (line === null) return null;
  const { sig, ...body } = line;
  const key = keyring.get(sig.kid);
  if (sig.kid !== head.checkpoint.sig.kid || sig.alg !== head.checkpoint.sig.alg || key === undefined)
    return `its LogHead is signed by ${sig.alg} ${sig.kid}, not as its checkpoint is`;
  const input = pae(LOG_HEAD_PAYLOAD_TYPE, canonicalJson(body));
  const signature = decodeBase64url(sig.value);
  const good =
    sig.alg === 'ed25519'
      ? key.hasEd25519Public && signature !== null && key.verifyEd25519(input, signature)
      : key.hasHmac && macEquals(key.mac(input).toString('base64url'), sig.value);
  return good ? null : 'its LogHead has a bad signature: it was changed';
}

function macEquals(want: string, given: string): boolean {
  const a = Buffer.from(want, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Which log a head says it belongs to: its `LogHead`'s series and position, else its checkpoint
 * note's origin (`a2a-replay/<kid>/<name>` for a first log, `…/<series id>/<position>` for a
 * continuing one); null when neither says (an HMAC checkpoint alone).
 */
export function headPlace(head: SeriesHead): { series: string; position: number; header: string | null } | null {
  if (head.head !== null) return { series: head.head.series, position: head.head.position, header: head.head.header };
  const note = head.checkpoint.note;
  if (note === null || note === undefined) return null;
  const parts = (note.split('\n')[0] ?? '').split('/');
  if (parts.length === 3 && parts[0] === 'a2a-replay') return { series: parts[2]!, position: 1, header: null };
  const position = Number(parts[3]);
  if (parts.length === 4 && parts[0] === 'a2a-replay' && Number.isInteger(position) && position >= 2)
    return { series: parts[2]!, position, header: null };
  return null;
}
