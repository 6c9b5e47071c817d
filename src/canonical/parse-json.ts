/**
 * @module canonical/parse-json
 * JSON text to value with errors that say where: line and column, not just "invalid JSON".
 * Parsing itself is `JSON.parse` (fast); only on failure does a small scanner walk the text to
 * find the first error, because Node's messages do not always carry a position.
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

/** Walks JSON text (RFC 8259 grammar) and throws at the first error. */
class Scanner {
  i = 0;

  constructor(private readonly s: string) {}

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i] as string)) this.i++;
  }

  private err(problem: string): never {
    throw new JsonSyntaxError(this.i, problem);
  }

  private found(): string {
    return this.i >= this.s.length ? 'end of input' : JSON.stringify(this.s[this.i]);
  }

  document(): void {
    this.ws();
    if (this.i >= this.s.length) this.err('no JSON value (the input is empty)');
    this.value();
    this.ws();
    if (this.i < this.s.length) this.err(`unexpected ${this.found()} after the JSON value`);
  }

  private value(): void {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
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

  private object(): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.err(`expected a double-quoted property name, found ${this.found()}`);
      this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.err(`expected ':' after a property name, found ${this.found()}`);
      this.i++;
      this.value();
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (this.s[this.i] === '}') {
        this.i++;
        return;
      }
      this.err(`expected ',' or '}' in an object, found ${this.found()}`);
    }
  }

  private array(): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (this.s[this.i] === ']') {
        this.i++;
        return;
      }
      this.err(`expected ',' or ']' in an array, found ${this.found()}`);
    }
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

/** Parses JSON text; on failure throws INVALID_JSON as `source:line:column: invalid JSON: problem`. */
export function parseJsonText(text: string, source = 'input'): unknown {
  try {
    return JSON.parse(text) as unknown;
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
}
