/**
 * @module tlog/witness-client
 * The log's side of C2SP tlog-witness `add-checkpoint` (docs/design.md §6, "Witnesses"): sends a
 * checkpoint with a consistency proof from the size the witness last cosigned, checks the
 * cosignature it answers with against the witness key given, and follows a `409 Conflict` as the
 * protocol says: retry once from the size the witness names, with a proof from it. A witness that
 * holds a different tree of the same size (409 again at equal sizes), or refuses the proof (422),
 * is a fork of the log and is told as one, never retried away. The HTTP exchange is injected.
 */
import { errorMessage } from '../errors.js';
import { type Cosignature, checkCosignatures } from './cosignature.js';
import { type NoteVerifier, parseNote } from './note.js';
import {
  MAX_PROOF_LINES,
  TLOG_SIZE_CONTENT_TYPE,
  formatAddCheckpoint,
  parseCosignatureLines,
  parseSizeBody,
} from './witness-protocol.js';

/** An HTTP answer, as far as the protocol reads it. */
export interface WitnessAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

/** POSTs `body` to `url`; rejects when the witness cannot be reached. */
export type WitnessPost = (url: string, body: string) => Promise<WitnessAnswer>;

/** What one submission came to. */
export type WitnessOutcome =
  | { kind: 'cosigned'; size: number; cosignature: Cosignature }
  /** The witness cosigned another tree of this size, or refused the proof from the size it holds. */
  | { kind: 'fork'; size: number; witnessSize: number | null; message: string }
  /** The witness already cosigned a larger tree of this log: this checkpoint is older, nothing to do. */
  | { kind: 'stale'; size: number; witnessSize: number }
  /** 400, 403, 404 and any other refusal: the witness does not take this checkpoint. */
  | { kind: 'refused'; size: number; status: number; message: string }
  /** Not reached, or an answer that is not the protocol's: worth trying again later. */
  | { kind: 'unreachable'; size: number; message: string };

export interface AddCheckpointOptions {
  /** The witness's submission prefix (`/add-checkpoint` is appended). */
  url: string;
  witness: NoteVerifier;
  /** The signed checkpoint note and its tree size. */
  checkpoint: string;
  size: number;
  /** The size this witness last cosigned for the log, as far as the client knows (0: unknown). */
  knownSize: number;
  /** An RFC 6962 consistency proof from `old` leaves to `size`. */
  proofFrom: (old: number) => Buffer[];
  post: WitnessPost;
}

const REFUSALS: Readonly<Record<number, string>> = {
  400: 'it refuses the request as malformed (400)',
  403: "it does not trust the log's key for this origin (403)",
  404: 'it does not know this origin (404)',
};

function endpoint(url: string): string {
  return `${url.replace(/\/+$/, '')}/add-checkpoint`;
}

/** The answer's size body, or null when the answer carries none. */
function conflictSize(answer: WitnessAnswer): number | null {
  if (answer.contentType?.split(';')[0]?.trim() !== TLOG_SIZE_CONTENT_TYPE) return null;
  try {
    return parseSizeBody(answer.body);
  } catch {
    return null;
  }
}

function readCosignature(options: AddCheckpointOptions, body: string): WitnessOutcome {
  const { size, witness } = options;
  let lines: string[];
  try {
    lines = parseCosignatureLines(body);
  } catch (error) {
    return { kind: 'unreachable', size, message: `answered 200 without cosignature lines: ${errorMessage(error)}` };
  }
  // The answer's lines joined to the checkpoint read as one note (tlog-witness: "concatenate it").
  const note = parseNote(`${options.checkpoint}${lines.join('\n')}\n`);
  const check = checkCosignatures(note.text, note.signatures, [witness]);
  const cosignature = check.valid[0];
  if (cosignature) return { kind: 'cosigned', size, cosignature };
  const why = check.invalid.length > 0 ? 'its cosignature does not verify' : `no line is signed by ${witness.name}`;
  return { kind: 'unreachable', size, message: `answered 200, but ${why} with the witness key given` };
}

/**
 * Submits a checkpoint to one witness; at most two requests (the second after a 409 naming
 * another size). Never throws: every failure is an outcome.
 */
export async function addCheckpoint(options: AddCheckpointOptions): Promise<WitnessOutcome> {
  const { size } = options;
  let old = Math.min(options.knownSize, size);
  for (let attempt = 0; attempt < 2; attempt++) {
    let answer: WitnessAnswer;
    try {
      const proof = options.proofFrom(old);
      if (proof.length > MAX_PROOF_LINES) throw new Error(`a proof of ${proof.length} hashes is over the limit`);
      answer = await options.post(
        endpoint(options.url),
        formatAddCheckpoint({ oldSize: old, proof, checkpoint: options.checkpoint }),
      );
    } catch (error) {
      return { kind: 'unreachable', size, message: errorMessage(error) };
    }
    if (answer.status === 200) return readCosignature(options, answer.body);
    if (answer.status === 422)
      return {
        kind: 'fork',
        size,
        witnessSize: old,
        message:
          `the consistency proof from size ${old} does not verify: the log's first ${old} lines are not ` +
          'the ones the witness cosigned',
      };
    if (answer.status === 409) {
      const held = conflictSize(answer);
      if (old === size || held === size) {
        if (old === size)
          return {
            kind: 'fork',
            size,
            witnessSize: held,
            message: `the witness cosigned another tree of size ${size} for this origin`,
          };
        old = size;
        continue;
      }
      if (held === null)
        return { kind: 'unreachable', size, message: `answered 409 without a ${TLOG_SIZE_CONTENT_TYPE} body` };
      if (held > size) return { kind: 'stale', size, witnessSize: held };
      old = held;
      continue;
    }
    const known = REFUSALS[answer.status];
    if (known !== undefined) return { kind: 'refused', size, status: answer.status, message: known };
    return { kind: 'unreachable', size, message: `answered HTTP ${answer.status}` };
  }
  return { kind: 'unreachable', size, message: 'answered 409 twice naming other sizes' };
}
