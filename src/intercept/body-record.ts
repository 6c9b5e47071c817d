/**
 * @module intercept/body-record
 * What a recording keeps of a body or an SSE event's data, and what the observer is handed in its
 * place (docs/design.md §5): JSON as `body`, anything else as `bodyText`, bytes that are not UTF-8
 * read as the peer reads them or named by their hash, a body over the recording cap kept as its
 * head ({@link headText}) with `cut` while the observer reads it whole, and a content-encoded
 * answer decoded first (an SSE stream through a streaming decoder). Resume tokens are written as
 * their placeholders (src/recording/resume-token.ts) unless the caller keeps them.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  type BrotliDecompress,
  type Gunzip,
  type Inflate,
  brotliDecompressSync,
  constants as zlibConstants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzipSync,
  inflateSync,
} from 'node:zlib';
import type { JsonValue } from '../canonical/canonical-json.js';
import { nestsDeeperThan } from '../canonical/depth.js';
import { type EntryCut, REPLAY_MAX_BODY_DEPTH } from '../recording/format.js';
import {
  type SeenTokens,
  redactOverCapText,
  replaceResumeTokens,
  replaceResumeTokensInText,
} from '../recording/resume-token.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { Redactor } from '../recording/redaction.js';

/**
 * How `bodyRepaired` starts: the body's bytes were not valid UTF-8 and were read with each invalid
 * sequence as U+FFFD, as the peer reads them (docs/design.md §5).
 */
export const UTF8_REPAIR = 'invalid UTF-8 read as U+FFFD';

/** The content encodings the recorder decodes. */
const DECODED_ENCODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;
export type DecodedEncoding = (typeof DECODED_ENCODINGS)[number];

/** Whether the recorder decodes `encoding` (a `Content-Encoding` value, lower-cased). */
export function isDecoded(encoding: string): encoding is DecodedEncoding {
  return (DECODED_ENCODINGS as readonly string[]).includes(encoding);
}

/** `chunks` as one buffer of `length` bytes: a body that came in one chunk is that chunk, not a copy. */
export function concat(chunks: Uint8Array[], length: number): Buffer {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only !== undefined && only.byteLength === length) return Buffer.from(only.buffer, only.byteOffset, length);
  return Buffer.concat(
    chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)),
    length,
  );
}

/** The recorded fields of a body, and what the observer is handed in their place, if anything else. */
export interface BodyRecord {
  fields: Pick<EntryDraft, 'body' | 'bodyText' | 'bodyRepaired' | 'cut' | 'incomplete'>;
  /** The whole body, when the recording keeps only its head (`cut`). */
  observed?: ObservedBody;
}

/** What a listener sees in place of a cut body: the whole of it, parsed as a body or kept as text. */
export type ObservedBody = { body: JsonValue } | { bodyText: string };

/**
 * Body text the recorder keeps as text (not JSON, or the head of a body over the cap) with the
 * resume tokens it can see replaced ({@link redactOverCapText}) when `seen` is given (the
 * `placeholder` policy; `undefined` keeps them). `cut`: the text is the head of something longer.
 */
export function textWithoutTokens(text: string, seen: SeenTokens | undefined, cut: boolean): string {
  return seen === undefined ? text : redactOverCapText(text, seen, cut);
}

/**
 * The text a recording keeps of a body or SSE event data over the recording cap: its first `cap`
 * bytes read as UTF-8 (a character the cut splits reads as U+FFFD), or its first `cap` characters.
 * Every cut body's `bodyText` comes from here.
 */
export function headText(whole: Buffer | string, cap: number): string {
  return typeof whole === 'string' ? whole.slice(0, cap) : whole.subarray(0, cap).toString('utf8');
}

export function sha256Of(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * `body` for JSON, `bodyText` for anything else, nothing for an empty body. Bytes that are not
 * UTF-8 cannot be written as text without loss: a JSON body among them is read as the peer reads
 * it (each invalid sequence as U+FFFD) and kept as `body`, `bodyRepaired` saying so with the sha256
 * of the bytes; for anything else a note stands in, with the sha256 of the bytes.
 * A body over `cap` keeps its head (`cut`); when all of it is at hand (`bytes` holds `total`
 * bytes) the observer gets the whole (docs/design.md §5, "Bodies over the cap").
 */
export function bodyRecord(
  bytes: Buffer,
  total: number,
  cap: number,
  seen: SeenTokens | undefined,
  whole?: () => EntryCut,
): BodyRecord {
  if (total === 0) return { fields: {} };
  const kept = bytes.subarray(0, cap);
  // A cut at the cap may split a character: only the last 3 bytes may be an unfinished sequence.
  const head = total > cap ? kept.subarray(0, Math.max(0, kept.length - 3)) : kept;
  if (!isUtf8(head)) {
    const digest = createHash('sha256').update(kept).digest('hex');
    const which = total > cap ? `the first ${kept.length} of ${total} bytes` : `${total} bytes`;
    if (total <= cap) {
      // What `node:http` servers (the peer) and `fetch` clients read: invalid sequences as U+FFFD.
      // Only JSON replay can walk is kept as a body; anything else gets the note below.
      const read = jsonOrText(kept.toString('utf8'), seen);
      if ('body' in read) return { fields: { ...read, bodyRepaired: `${UTF8_REPAIR}; sha256 of ${which}:${digest}` } };
    }
    return { fields: { bodyText: `[body not recorded: not valid UTF-8; sha256 of ${which}:${digest}]` } };
  }
  if (total <= cap) {
    const text = kept.toString('utf8');
    return { fields: jsonOrText(text, seen) };
  }
  const cut = whole?.() ?? { bytes: total, sha256: sha256Of(bytes) };
  const fields = { bodyText: textWithoutTokens(headText(bytes, cap), seen, true), cut };
  // All of it at hand and text: the observer reads it whole.
  if (bytes.byteLength === total && isUtf8(bytes))
    return { fields, observed: jsonOrText(bytes.toString('utf8'), seen) };
  return { fields };
}

/**
 * `body` for JSON text, `bodyText` (the text as it came) for anything else. JSON nested deeper
 * than replay and mock walk ({@link REPLAY_MAX_BODY_DEPTH}) is kept as its text too, so the
 * recording stays one they take and they send or compare those bytes as they are (docs/design.md
 * §5); its resume tokens are written as placeholders in the text, and when that cannot be done a
 * note with the sha256 of the text stands in.
 */
export function jsonOrText(text: string, seen: SeenTokens | undefined): ObservedBody {
  let body: JsonValue;
  try {
    body = JSON.parse(text) as JsonValue;
  } catch {
    return { bodyText: textWithoutTokens(text, seen, false) };
  }
  if (!deeperThanReplayWalks(text, body)) {
    return { body: seen === undefined ? body : replaceResumeTokens(body, text, seen) };
  }
  const kept = seen === undefined ? text : replaceResumeTokensInText(body, text);
  if (kept !== undefined) return { bodyText: kept };
  const digest = createHash('sha256').update(text, 'utf8').digest('hex');
  return {
    bodyText:
      `[body not recorded: JSON nested deeper than ${REPLAY_MAX_BODY_DEPTH} levels holding a resume token ` +
      `that cannot be replaced in its text; sha256 of ${Buffer.byteLength(text)} bytes:${digest}]`,
  };
}

/**
 * Whether `body` (parsed from `text`) nests deeper than {@link REPLAY_MAX_BODY_DEPTH}. That takes
 * more containers, each opened and closed in the text, than a shorter text can hold: most bodies
 * are answered by their length, without a walk.
 */
function deeperThanReplayWalks(text: string, body: JsonValue): boolean {
  return text.length >= 2 * (REPLAY_MAX_BODY_DEPTH + 1) && nestsDeeperThan(body, REPLAY_MAX_BODY_DEPTH);
}

function decode(encoding: DecodedEncoding, bytes: Buffer, cap: number): Buffer | 'too-large' | 'corrupt' {
  const options = { maxOutputLength: cap };
  try {
    switch (encoding) {
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(bytes, options);
      case 'deflate':
        return inflateSync(bytes, options);
      case 'br':
        return brotliDecompressSync(bytes, options);
      default: {
        const never: never = encoding;
        return never;
      }
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'corrupt';
  }
}

/**
 * The record of a content-encoded answer: the decoded body (the entry's headers still name the
 * encoding), kept or cut as any body, or, when it cannot be decoded within the observation cap,
 * a `bodyText` saying why, marked `incomplete` — never the compressed bytes as text.
 */
export function encodedBodyRecord(
  encoding: string,
  bytes: Buffer,
  total: number,
  caps: { record: number; observe: number },
  seen: SeenTokens | undefined,
): BodyRecord {
  const what = `[${encoding}-encoded body of ${total} bytes`;
  if (total > caps.observe) {
    const why = `its ${total} encoded bytes are over the ${caps.observe}-byte observation cap (--max-observed-bytes)`;
    return { fields: { bodyText: `${what} not recorded: ${why}]`, incomplete: `a ${encoding}-encoded body: ${why}` } };
  }
  const decoded = isDecoded(encoding) ? decode(encoding, bytes, caps.observe) : 'unknown';
  if (decoded instanceof Buffer) return bodyRecord(decoded, decoded.byteLength, caps.record, seen);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const why =
    decoded === 'unknown'
      ? 'an encoding the recorder does not decode'
      : decoded === 'too-large'
        ? `it decodes to more than the ${caps.observe}-byte observation cap (--max-observed-bytes)`
        : 'it is not valid data of that encoding';
  return {
    fields: {
      bodyText: `${what} not recorded: ${why}; sha256:${digest}]`,
      incomplete: `content-encoding ${encoding}: ${why}`,
    },
  };
}

export type Decoder = Gunzip | Inflate | BrotliDecompress;

/** A streaming decompressor for an encoded SSE stream; every chunk written is flushed out at once. */
export function streamDecoder(encoding: DecodedEncoding): Decoder {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip({ flush: zlibConstants.Z_SYNC_FLUSH });
    case 'deflate':
      return createInflate({ flush: zlibConstants.Z_SYNC_FLUSH });
    case 'br':
      return createBrotliDecompress({ flush: zlibConstants.BROTLI_OPERATION_FLUSH });
    default: {
      const never: never = encoding;
      return never;
    }
  }
}

/** The whole body the observer reads, its secrets marked as the recorded head's are. */
export function redactedObserved(redactor: Redactor, observed: ObservedBody): ObservedBody {
  return 'bodyText' in observed
    ? { bodyText: redactor.bodyText(observed.bodyText) }
    : { body: redactor.json(observed.body) };
}
