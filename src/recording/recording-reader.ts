/**
 * @module recording/recording-reader
 * Reads a recording line by line in constant memory (docs/design.md §5). Every line is checked against
 * the format; a bad line is reported with its line number. A last line without a newline that
 * does not parse is a torn tail (the recorder died mid-write): an error unless the caller allows
 * it, in which case it is skipped and reported.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { A2aReplayError } from '../errors.js';
import { nestsDeeperThan } from '../canonical/depth.js';
import { isRecord } from '../protocol/read.js';
import { ENTRY_KINDS, RECORDING_VERSION, type RecordingEntry, type RecordingHeader } from './format.js';

export interface ReadRecordingOptions {
  /** Skip a torn last line (and report it through `onTornTail`) instead of failing. */
  allowTornTail?: boolean;
  /** Called with the skipped torn tail when `allowTornTail` is set. */
  onTornTail?: (tail: TornTail) => void;
  /** Name used in messages (default: the path, or "recording"). */
  source?: string;
  /**
   * Refuse, as RECORDING_MALFORMED naming the line, an entry whose body nests deeper than this
   * many levels (replay and mock walk bodies on the call stack: `REPLAY_MAX_BODY_DEPTH`, format.ts).
   */
  maxBodyDepth?: number;
}

/** The incomplete last line of a recording cut short by a crash. */
export interface TornTail {
  line: number;
  bytes: number;
  message: string;
}

/** One parsed line and where it was. */
export type RecordingLineRead =
  { line: number; kind: 'header'; header: RecordingHeader } | { line: number; kind: 'entry'; entry: RecordingEntry };

/** Everything in a recording, for callers that want it in memory. */
export interface Recording {
  header: RecordingHeader;
  entries: RecordingEntry[];
  tornTail?: TornTail;
}

function malformed(source: string, line: number, problem: string): A2aReplayError {
  return new A2aReplayError('RECORDING_MALFORMED', `${source}:${line}: ${problem}`);
}

function checkHeader(value: unknown, source: string, line: number): RecordingHeader {
  if (!isRecord(value) || value.type !== 'recording') {
    throw malformed(source, line, 'the first line is not a recording header ({"type":"recording",...})');
  }
  if (value.version !== RECORDING_VERSION) {
    throw malformed(
      source,
      line,
      `recording version ${JSON.stringify(value.version)} is not supported (expected ${RECORDING_VERSION})`,
    );
  }
  for (const field of ['id', 'createdAt', 'tool'] as const) {
    if (typeof value[field] !== 'string') throw malformed(source, line, `header field "${field}" is not a string`);
  }
  if (!isRecord(value.target) || typeof value.target.url !== 'string') {
    throw malformed(source, line, 'header field "target.url" is not a string');
  }
  return value as unknown as RecordingHeader;
}

/**
 * What an HTTP message can carry, as Node's client and server check it before sending: replay
 * sends a recorded request's method, target and headers as they are, and the mock a recorded
 * answer's headers, so an entry that breaks these rules is refused here, naming its line and
 * field, rather than failing mid-run. The recorder only writes what passed them.
 */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A request target as sent: the characters U+0021–U+00FF (Latin-1 bytes), at least one. */
const REQUEST_TARGET = /^[\u0021-\u00ff]+$/;
const HEADER_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

function checkEntry(value: unknown, source: string, line: number, expectedSeq: number): RecordingEntry {
  if (!isRecord(value)) throw malformed(source, line, 'an entry is not a JSON object');
  if (value.seq !== expectedSeq) {
    throw malformed(source, line, `entry "seq" is ${JSON.stringify(value.seq)}, expected ${expectedSeq}`);
  }
  if (typeof value.at !== 'string') throw malformed(source, line, 'entry field "at" is not a string');
  if (typeof value.xid !== 'string') throw malformed(source, line, 'entry field "xid" is not a string');
  if (!(ENTRY_KINDS as readonly unknown[]).includes(value.kind)) {
    throw malformed(source, line, `entry "kind" ${JSON.stringify(value.kind)} is not one of ${ENTRY_KINDS.join(', ')}`);
  }
  const http = value.http;
  if (!isRecord(http) || typeof http.method !== 'string' || typeof http.path !== 'string') {
    throw malformed(source, line, 'entry field "http" needs string "method" and "path"');
  }
  if (!HTTP_TOKEN.test(http.method)) {
    throw malformed(source, line, `entry field "http.method" ${JSON.stringify(http.method)} is not an HTTP method`);
  }
  if (!REQUEST_TARGET.test(http.path)) {
    throw malformed(
      source,
      line,
      `entry field "http.path" ${JSON.stringify(http.path)} is not a request target: it is empty or holds a ` +
        'space, a control character or a character above U+00FF',
    );
  }
  if (http.status !== undefined && typeof http.status !== 'number') {
    throw malformed(source, line, 'entry field "http.status" is not a number');
  }
  if (http.headers !== undefined) {
    if (!isRecord(http.headers) || !Object.values(http.headers).every((v) => typeof v === 'string')) {
      throw malformed(source, line, 'entry field "http.headers" is not an object of strings');
    }
    for (const [name, text] of Object.entries(http.headers as Record<string, string>)) {
      if (!HTTP_TOKEN.test(name) || !HEADER_VALUE.test(text)) {
        throw malformed(
          source,
          line,
          `entry field "http.headers" holds ${JSON.stringify(name)}, which no HTTP message can carry as it is ` +
            '(a name that is not a token, or a value with a control character or one above U+00FF)',
        );
      }
    }
  }
  const fields = ['bodyText', 'bodyRepaired', 'principal', 'error', 'incomplete', 'a2aVersion', 'undelivered'] as const;
  for (const field of fields) {
    if (value[field] !== undefined && typeof value[field] !== 'string') {
      throw malformed(source, line, `entry field "${field}" is not a string`);
    }
  }
  if (value.cut !== undefined) {
    const cut = value.cut;
    if (
      !isRecord(cut) ||
      !Number.isSafeInteger(cut.bytes) ||
      (cut.bytes as number) < 0 ||
      typeof cut.sha256 !== 'string' ||
      !/^sha256:[0-9a-f]{64}$/.test(cut.sha256) ||
      Object.keys(cut).length !== 2
    ) {
      throw malformed(source, line, 'entry field "cut" is not {bytes: a whole number, sha256: "sha256:<64 hex>"}');
    }
    if (typeof value.bodyText !== 'string')
      throw malformed(source, line, 'entry field "cut" says the body was cut, but the entry has no "bodyText"');
  }
  return value as unknown as RecordingEntry;
}

/**
 * Parses a recording from a byte or text stream, yielding each line as it is read. Throws
 * RECORDING_MALFORMED naming the line for a bad line, RECORDING_TORN for a torn tail unless
 * `allowTornTail` is set.
 */
export async function* readRecordingStream(
  input: AsyncIterable<Uint8Array | string>,
  options: ReadRecordingOptions = {},
): AsyncGenerator<RecordingLineRead> {
  const source = options.source ?? 'recording';
  const decoder = new StringDecoder('utf8');
  let lineNumber = 0;
  let sawHeader = false;

  const parseLine = (text: string, line: number): RecordingLineRead | undefined => {
    if (text.trim() === '') throw malformed(source, line, 'empty line');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!sawHeader) {
      sawHeader = true;
      return { line, kind: 'header', header: checkHeader(value, source, line) };
    }
    const entry = checkEntry(value, source, line, line - 1);
    const limit = options.maxBodyDepth;
    if (limit !== undefined && nestsDeeperThan(entry.body, limit))
      throw malformed(
        source,
        line,
        `the entry's body nests deeper than ${limit} levels, more than replay and mock take`,
      );
    return { line, kind: 'entry', entry };
  };

  const complete = (text: string): RecordingLineRead => {
    lineNumber += 1;
    const read = parseLine(text.endsWith('\r') ? text.slice(0, -1) : text, lineNumber);
    if (read === undefined) throw malformed(source, lineNumber, 'not valid JSON');
    return read;
  };

  // Linear in the input: only new text is searched for newlines, and the pieces of an unfinished
  // line are joined once, when its newline arrives.
  const pending: string[] = [];
  for await (const chunk of input) {
    const text =
      typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      const piece = text.slice(start, newline);
      if (pending.length === 0) {
        yield complete(piece);
      } else {
        pending.push(piece);
        yield complete(pending.splice(0).join(''));
      }
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  const carry = pending.join('') + decoder.end();
  if (carry.length > 0) {
    lineNumber += 1;
    const read = parseLine(carry, lineNumber);
    if (read !== undefined) {
      yield read;
    } else {
      const tail: TornTail = {
        line: lineNumber,
        bytes: Buffer.byteLength(carry),
        message:
          `${source}:${lineNumber}: torn last line (${Buffer.byteLength(carry)} bytes ` +
          `without a newline, not valid JSON)`,
      };
      if (!options.allowTornTail) throw new A2aReplayError('RECORDING_TORN', tail.message);
      options.onTornTail?.(tail);
    }
  }
  if (!sawHeader) throw malformed(source, 1, 'the recording is empty (no header line)');
}

/** {@link readRecordingStream} over a file. */
export function readRecordingFile(path: string, options: ReadRecordingOptions = {}): AsyncGenerator<RecordingLineRead> {
  return readRecordingStream(openForReading(path), { source: path, ...options });
}

async function* openForReading(path: string): AsyncGenerator<Buffer> {
  const stream = createReadStream(path);
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new A2aReplayError('IO_FAILED', `${path}: cannot read the recording (${code})`, { cause: error });
  } finally {
    stream.destroy();
  }
}

/** Reads a whole recording into memory (header, entries, and the skipped torn tail if any). */
export async function readRecording(path: string, options: ReadRecordingOptions = {}): Promise<Recording> {
  let header: RecordingHeader | undefined;
  const entries: RecordingEntry[] = [];
  let tornTail: TornTail | undefined;
  const onTornTail = (tail: TornTail): void => {
    tornTail = tail;
    options.onTornTail?.(tail);
  };
  for await (const read of readRecordingFile(path, { ...options, onTornTail })) {
    if (read.kind === 'header') header = read.header;
    else entries.push(read.entry);
  }
  if (header === undefined) throw malformed(options.source ?? path, 1, 'the recording has no header line');
  return tornTail === undefined ? { header, entries } : { header, entries, tornTail };
}
