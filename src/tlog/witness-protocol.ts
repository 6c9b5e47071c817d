/**
 * @module tlog/witness-protocol
 * The messages of C2SP tlog-witness `add-checkpoint` (docs/design.md §6, "Witnesses"): the
 * request body (`old <size>`, up to 63 base64 consistency-proof lines, a blank line, the signed
 * checkpoint), the `409 Conflict` body (`text/x.tlog.size`: the size the witness last cosigned)
 * and the `200` body (note signature lines, each `— name base64`).
 */
import { A2aReplayError } from '../errors.js';
import { HASH_BYTES } from './merkle.js';

/** Consistency-proof lines a request may carry. */
export const MAX_PROOF_LINES = 63;
/** The content type of a 409 answer's body. */
export const TLOG_SIZE_CONTENT_TYPE = 'text/x.tlog.size';

function invalid(problem: string): A2aReplayError {
  return new A2aReplayError('INVALID_ARGUMENT', problem);
}

function decimal(text: string, what: string): number {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw invalid(`${what}: expected a decimal number with no leading zero`);
  return Number(text);
}

/** An add-checkpoint request. */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  /** The signed checkpoint note, verbatim. */
  checkpoint: string;
}

export function formatAddCheckpoint(request: AddCheckpointRequest): string {
  if (request.proof.length > MAX_PROOF_LINES)
    throw invalid(`a consistency proof has at most ${MAX_PROOF_LINES} hashes`);
  const proof = request.proof.map((hash) => `${hash.toString('base64')}\n`).join('');
  return `old ${request.oldSize}\n${proof}\n${request.checkpoint}`;
}

/** Reads an add-checkpoint body; throws naming the line that is wrong. */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw invalid('add-checkpoint: no blank line before the checkpoint');
  const lines = body.slice(0, blank).split('\n');
  const old = /^old (.*)$/.exec(lines[0] ?? '');
  if (!old) throw invalid("add-checkpoint line 1: expected 'old <size>'");
  const oldSize = decimal(old[1]!, 'add-checkpoint line 1: old size');
  const proofLines = lines.slice(1);
  if (proofLines.length > MAX_PROOF_LINES) throw invalid(`add-checkpoint: over ${MAX_PROOF_LINES} proof lines`);
  const proof = proofLines.map((line, i) => {
    const hash = Buffer.from(line, 'base64');
    if (hash.toString('base64') !== line || hash.length !== HASH_BYTES)
      throw invalid(`add-checkpoint line ${i + 2}: expected the base64 of a 32-byte hash`);
    return hash;
  });
  const checkpoint = body.slice(blank + 2);
  if (checkpoint === '') throw invalid('add-checkpoint: no checkpoint after the blank line');
  return { oldSize, proof, checkpoint };
}

/** Reads a 409 body: the tree size the witness last cosigned, then a newline. */
export function parseSizeBody(body: string): number {
  if (!body.endsWith('\n')) throw invalid('a tlog size body ends with a newline');
  return decimal(body.slice(0, -1), 'tlog size body');
}

/** The signature lines of a 200 body (each without its newline); throws when it holds anything else. */
export function parseCosignatureLines(body: string): string[] {
  if (body === '' || !body.endsWith('\n'))
    throw invalid('a cosignature answer is signature lines, each ending in a newline');
  const lines = body.slice(0, -1).split('\n');
  for (const [i, line] of lines.entries())
    if (!line.startsWith('\u2014 ')) throw invalid(`cosignature answer line ${i + 1} is not a signature line`);
  return lines;
}
