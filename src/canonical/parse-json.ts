/**
 * @module canonical/parse-json
 * JSON text to value with errors that say where: line and column, not just "invalid JSON".
 * Parsing itself is `JSON.parse` (fast); a small scanner walks the text to find the first error,
 * because Node's messages do not always carry a position, and to refuse a key repeated in one
 * object (I-JSON), which JSON.parse accepts silently.
 */
import { A2aReplayError } from '../errors.js';

/** Line and column (1-based) of a character offset in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** A container being scanned: an object with its keys so far, or an array with its index. */
type Frame = { kind: 'object'; keys: Set<string>; key: string } | { kind: 'array'; index: number };

/**
 * Walks JSON text (RFC 8259 grammar) with an explicit stack, so any nesting depth is fine, and
 * throws at the first error. With `duplicates`, a key repeated in one object is an error too
 * (I-JSON, RFC 7493 §2.3), reported at the repeated key with its JSON Pointer.
 */
class Scanner {
  i = 0;
  readonly #stack: Frame[] = [];

  constructor(
    private readonly s: string,
    private readonly duplicates = false,
  ) {}

  private ws(): void {
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.i++;
    }
  }

  private err(problem: string, offset = this.i): never {
    throw new JsonSyntaxError(offset, problem);
  }

  private found(): string {
    return this.i >= this.s.length ? 'end of input' : JSON.stringify(this.s[this.i]);
  }

  /** The JSON Pointer of the member being scanned. */
  pointer(): string {
    return this.#stack
      .map((f) => `/${f.kind === 'object' ? f.key.replace(/~/g, '~0').replace(/\//g, '~1') : String(f.index)}`)
      .join('');
  }

  document(): void {
    this.ws();
    if (this.i >= this.s.length) this.err('no JSON value (the input is empty)');
    this.value();
    this.ws();
    if (this.i < this.s.length) this.err(`unexpected ${this.found()} after the JSON value`);
  }

  /** One value, containers included, without recursion. */
  private value(): void {
    const stack = this.#stack;
    const base = stack.length;
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === '{' || c === '[') {
        this.i++;
        this.ws();
        const close = c === '{' ? '}' : ']';
        if (this.s[this.i] === close) {
          this.i++;
        } else if (c === '{') {
          const frame: Frame = { kind: 'object', keys: new Set(), key: '' };
          stack.push(frame);
          this.member(frame);
          continue;
        } else {
          stack.push({ kind: 'array', index: 0 });
          continue;
        }
      } else {
        this.scalar();
      }
      // A value ended: close the containers it ended, or move to the next member.
      for (;;) {
        if (stack.length === base) return;
        const top = stack[stack.length - 1] as Frame;
        this.ws();
        const next = this.s[this.i];
        if (next === ',') {
          this.i++;
          if (top.kind === 'object') this.member(top);
          else top.index++;
          break;
        }
        if (next === (top.kind === 'object' ? '}' : ']')) {
          this.i++;
          stack.pop();
          continue;
        }
        this.err(
          top.kind === 'object'
            ? `expected ',' or '}' in an object, found ${this.found()}`
            : `expected ',' or ']' in an array, found ${this.found()}`,
        );
      }
    }
  }

  /** A property name and its colon; the value follows. */
  private member(frame: Extract<Frame, { kind: 'object' }>): void {
    this.ws();
    if (this.s[this.i] !== '"') this.err(`expected a double-quoted property name, found ${this.found()}`);
    const start = this.i;
    this.string();
    if (this.duplicates) {
      const raw = this.s.slice(start + 1, this.i - 1);
      const key = raw.includes('\\') ? (JSON.parse(this.s.slice(start, this.i)) as string) : raw;
      if (frame.keys.has(key)) {
        frame.key = key;
        this.err(`duplicate key ${JSON.stringify(key)} at ${this.pointer()}`, start);
      }
      frame.keys.add(key);
      frame.key = key;
    } else {
      frame.key = this.s.slice(start + 1, this.i - 1);
    }
    this.ws();
    if (this.s[this.i] !== ':') this.err(`expected ':' after a property name, found ${this.found()}`);
    this.i++;
  }

  private scalar(): void {
    const c = this.s[this.i];
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    return this.err(`unexpected ${this.found()} where a value was expected`);
  }

  private string(): void {
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.err('unescaped control character in a string');
      if (c === 0x5c) {
        const e = this.s[this.i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6))) this.err('bad \\u escape in a string');
          this.i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.err('bad escape in a string');
        this.i += 2;
        continue;
      }
      this.i++;
    }
    this.err('unterminated string');
  }

  private number(): void {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m || m[0] === '-') this.err('malformed number');
    this.i += m[0].length;
  }
}

/** Where and why `text` is not JSON, or `undefined` when it is. */
export function locateJsonError(
  text: string,
): { offset: number; line: number; column: number; problem: string } | undefined {
  try {
    new Scanner(text).document();
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { offset: error.offset, ...lineColumnAt(text, error.offset), problem: error.problem };
  }
}

/**
 * Where `text` (valid JSON) repeats a key within one object, or `undefined`: JSON.parse keeps
 * only the last, so a hash of the parsed value would silently differ from what others read.
 */
export function findDuplicateKey(
  text: string,
): { offset: number; line: number; column: number; problem: string } | undefined {
  try {
    new Scanner(text, true).document();
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { offset: error.offset, ...lineColumnAt(text, error.offset), problem: error.problem };
  }
}

/**
 * Parses JSON text; on failure throws INVALID_JSON as `source:line:column: invalid JSON: problem`.
 * Unless `allowDuplicateKeys`, a key repeated in one object is refused the same way: input that
 * is hashed or signed must be I-JSON (RFC 7493), as RFC 8785 requires.
 */
export function parseJsonText(text: string, source = 'input', options: { allowDuplicateKeys?: boolean } = {}): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (cause) {
    const where = locateJsonError(text) ?? { line: 1, column: 1, problem: 'not valid JSON' };
    throw new A2aReplayError(
      'INVALID_JSON',
      `${source}:${where.line}:${where.column}: invalid JSON: ${where.problem}`,
      {
        cause,
      },
    );
  }
  if (!options.allowDuplicateKeys && text.includes('"')) {
    const duplicate = findDuplicateKey(text);
    if (duplicate) {
      throw new A2aReplayError(
        'INVALID_JSON',
        `${source}:${duplicate.line}:${duplicate.column}: ${duplicate.problem}: RFC 8785 input must be I-JSON ` +
          '(no key twice in one object); JSON.parse would silently keep only the last',
      );
    }
  }
  return value;
}
