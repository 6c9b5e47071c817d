/**
 * @module tlog/checkpoint
 * C2SP tlog-checkpoint note texts (origin, tree size, base64 root, optional extension lines)
 * and C2SP tlog-proof files (docs/design.md §6, "Merkle checkpoints").
 */
import { A2aReplayError } from '../errors.js';
import { HASH_BYTES } from './merkle.js';

export interface CheckpointBody {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

function invalid(problem: string): A2aReplayError {
  return new A2aReplayError('INVALID_ARGUMENT', problem);
}

function base64Hash(text: string, what: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text || bytes.length !== HASH_BYTES)
    throw invalid(`${what}: expected the base64 of a 32-byte hash`);
  return bytes;
}

function decimal(text: string, what: string): number {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw invalid(`${what}: expected a decimal number with no leading zero`);
  return Number(text);
}

/** The note text of a checkpoint: `origin\nsize\nbase64(root)\n` then any extension lines. */
export function checkpointText(body: CheckpointBody): string {
  if (body.origin === '' || body.origin.includes('\n')) throw invalid('a checkpoint origin is one non-empty line');
  if (body.root.length !== HASH_BYTES) throw invalid('a checkpoint root is a 32-byte hash');
  const extensions = body.extensions.map((line) => {
    if (line === '' || line.includes('\n')) throw invalid('a checkpoint extension is one non-empty line');
    return `${line}\n`;
  });
  return `${body.origin}\n${body.size}\n${body.root.toString('base64')}\n${extensions.join('')}`;
}

/** Reads a checkpoint note text (the part before the signatures). */
export function parseCheckpointText(text: string): CheckpointBody {
  if (!text.endsWith('\n')) throw invalid('malformed checkpoint: its text ends with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw invalid('malformed checkpoint: origin, size and root lines expected');
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') throw invalid('malformed checkpoint: empty origin');
  if (extensions.some((line) => line === '')) throw invalid('malformed checkpoint: an empty extension line');
  return {
    origin,
    size: decimal(size, 'checkpoint size'),
    root: base64Hash(root, 'checkpoint root'),
    extensions,
  };
}

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/** A tlog-proof: an entry's index, its inclusion path and the signed checkpoint note. */
export interface TlogProof {
  index: number;
  path: Buffer[];
  /** The checkpoint, verbatim: a signed note. */
  checkpoint: string;
  extra: Buffer | null;
}

export function formatTlogProof(proof: TlogProof): string {
  const lines = [TLOG_PROOF_HEADER];
  if (proof.extra) lines.push(`extra ${proof.extra.toString('base64')}`);
  lines.push(`index ${proof.index}`);
  for (const hash of proof.path) lines.push(hash.toString('base64'));
  return `${lines.join('\n')}\n\n${proof.checkpoint}`;
}

/** Reads a tlog-proof file; names the line that is wrong. */
export function parseTlogProof(text: string): TlogProof {
  const lines = text.split('\n');
  if (lines[0] !== TLOG_PROOF_HEADER) throw invalid(`proof line 1: expected ${TLOG_PROOF_HEADER}`);
  let i = 1;
  let extra: Buffer | null = null;
  if (lines[i]?.startsWith('extra ')) {
    const encoded = lines[i]!.slice('extra '.length);
    extra = Buffer.from(encoded, 'base64');
    if (extra.toString('base64') !== encoded) throw invalid(`proof line ${i + 1}: extra is not canonical base64`);
    i++;
  }
  const index = /^index (.*)$/.exec(lines[i] ?? '');
  if (!index) throw invalid(`proof line ${i + 1}: expected 'index N'`);
  const at = decimal(index[1]!, `proof line ${i + 1}: index`);
  i++;
  const path: Buffer[] = [];
  for (; i < lines.length && lines[i] !== ''; i++) path.push(base64Hash(lines[i]!, `proof line ${i + 1}`));
  if (i >= lines.length) throw invalid('proof: no blank line before the checkpoint');
  const checkpoint = lines.slice(i + 1).join('\n');
  if (checkpoint === '') throw invalid('proof: no checkpoint after the blank line');
  return { index: at, path, checkpoint, extra };
}
