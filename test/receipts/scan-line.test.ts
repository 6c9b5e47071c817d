/**
 * The one-pass scan of a written line (scan-line.ts) against the general way verify reads a line
 * (JSON.parse, the readers, the canonical check of line-form.ts). Where the scan accepts a text,
 * the general way accepts it too and gives the same line (members, order, values) and the same
 * signed body text; where the general way accepts a receipt or checkpoint, the scan accepts it
 * unless the text holds what the scan leaves to the general way (a backslash, a character
 * outside the BMP, a number that is not an integer of at most 15 digits). Texts: every written
 * line; lines with a member replaced, removed or added and serialized canonically or not; lines
 * with one character inserted, removed or changed anywhere; conditions of any JSON; sig members
 * of any strings. Checkpoints of both shapes: version 3 (`final`, `recording`, a binding among
 * them) and version 2.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineForm } from '../../src/receipts/line-form.js';
import { readReceiptLineFast } from '../../src/receipts/read-line-fast.js';
import { scanReceiptLine } from '../../src/receipts/scan-line.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { Keyring } from '../../src/receipts/keys.js';
import { buildLogLines, fixedKey } from './fixtures.js';
import { REMOVE, REPLACEMENTS, paths, readLine, setAt } from './line-mutations.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const written = [
  ...buildLogLines({ count: 40, keyring: new Keyring([fixedKey('key-sl')]), checkpointEvery: 8 }),
  ...buildLogLines({ count: 6, keyring: new Keyring([fixedKey('key-sl-h', 'h', false)]), checkpointEvery: 3 }),
  // A closing checkpoint binding its recording, and the checkpoints of a version-2 log.
  ...buildLogLines({
    count: 4,
    keyring: new Keyring([fixedKey('key-sl-b')]),
    checkpointEvery: 2,
    binding: { id: 'rec-test', lines: 12, lastLineHash: `sha256:${'ab'.repeat(32)}` },
  }),
  ...buildLogLines({ count: 4, keyring: new Keyring([fixedKey('key-sl-2')]), checkpointEvery: 2, version: 2 }),
];
const receipts = written.filter((t) => !t.includes('"type":"ReceiptLog"'));

/** The general way, as examineLine takes it: the line and its signed body, or null when refused. */
function general(text: string): { line: unknown; body: string } | null {
  const read = readLine(text);
  if (!read) return null;
  const form = lineForm(text, read.value, read.line, readReceiptLineFast(read.value) !== null);
  return form.canonical ? { line: read.line, body: form.body.join('') } : null;
}

/** What the scan may leave to the general way although that way accepts the text. */
const leftToGeneral = (text: string): boolean =>
  /\\|[\ud800-\udfff]|\d{16}|\d[.eE]/.test(text) || text.includes('"type":"ReceiptLog"');

/** The scan held to the general way on `text`; returns whether the scan accepted it. */
function expectAgreement(text: string): boolean {
  const scanned = scanReceiptLine(text);
  const reference = general(text);
  if (scanned !== null) {
    expect(reference).not.toBeNull();
    expect(scanned.line).toEqual(reference!.line);
    // Same members in the same order, at every depth.
    expect(JSON.stringify(scanned.line)).toBe(JSON.stringify(reference!.line));
    expect(scanned.body.join('')).toBe(reference!.body);
  } else if (reference !== null) {
    expect(leftToGeneral(text)).toBe(true);
  }
  return scanned !== null;
}

/** The readers' replacements, and numbers, strings and objects that matter to the scan. */
const replacement = fc.oneof(
  fc.constantFrom<unknown>(
    ...REPLACEMENTS,
    1e21,
    999_999_999_999_999,
    1_000_000_000_000_000,
    'é',
    '\u2028',
    '\u007f',
    `${'a'.repeat(31)}\u0430`,
    { '10': 1, '9': 2 },
    { b: 1, a: { d: [1, { f: null, e: 'x' }], c: true } },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Characters that matter to JSON, to canonical form, or to the scan's own tests. */
const char = fc.constantFrom(
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '0',
  '1',
  '9',
  '-',
  '.',
  'e',
  'a',
  'f',
  'g',
  'A',
  'n',
  't',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u00e9',
  '\u2028',
  '\ud83d',
  '\ude00',
);

describe('scanning a written line against the general way', () => {
  it('accepts every written receipt and checkpoint, giving the general way’s line and body', () => {
    for (const text of written) {
      const accepted = expectAgreement(text);
      expect(accepted).toBe(!text.includes('"type":"ReceiptLog"'));
    }
  });

  it('agrees on lines with a member or item replaced, removed or added, written canonically or not', () => {
    fc.assert(
      fc.property(
        fc.nat(receipts.length - 1),
        fc.nat(),
        fc.oneof(replacement, fc.constant<unknown>(REMOVE)),
        fc.boolean(),
        fc.constantFrom('canonical', 'stringify', 'spaced'),
        (i, p, to, add, style) => {
          const value = JSON.parse(receipts[i]!) as Record<string, unknown>;
          const where = paths(value);
          const path = where[p % where.length]!;
          if (add && to !== REMOVE) setAt(value, [...path.slice(0, -1), `${String(path.at(-1))}x`], to);
          else setAt(value, path, to);
          let text: string;
          try {
            text =
              style === 'canonical'
                ? canonicalJson(value)
                : style === 'stringify'
                  ? JSON.stringify(value)
                  : JSON.stringify(value, null, 1);
          } catch {
            return; // a value canonical JSON refuses (a number it cannot write)
          }
          expectAgreement(text);
        },
      ),
      { numRuns: fuzzRuns(1000), seed: 31 },
    );
  });

  it('agrees on lines with one character inserted, removed or changed anywhere', () => {
    fc.assert(
      fc.property(
        fc.nat(receipts.length - 1),
        fc.nat(),
        fc.constantFrom('insert', 'remove', 'change'),
        char,
        (i, p, how, c) => {
          const source = receipts[i]!;
          const at = p % source.length;
          const text =
            how === 'insert'
              ? source.slice(0, at) + c + source.slice(at)
              : how === 'remove'
                ? source.slice(0, at) + source.slice(at + 1)
                : source.slice(0, at) + c + source.slice(at + 1);
          expectAgreement(text);
        },
      ),
      { numRuns: fuzzRuns(1500), seed: 32 },
    );
  });

  it('agrees on conditions of any JSON and sig members of any strings', () => {
    const suspensions = receipts.filter((t) => t.includes('"conditions":{'));
    fc.assert(
      fc.property(
        fc.nat(suspensions.length - 1),
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom('canonical', 'stringify'),
        (i, conditions, style) => {
          const value = JSON.parse(suspensions[i]!) as Record<string, unknown>;
          value.conditions = conditions;
          let text: string;
          try {
            text = style === 'canonical' ? canonicalJson(value) : JSON.stringify(value);
          } catch {
            return;
          }
          expectAgreement(text);
        },
      ),
      { numRuns: fuzzRuns(400), seed: 33 },
    );
    fc.assert(
      fc.property(
        fc.nat(receipts.length - 1),
        fc.constantFrom('alg', 'kid', 'value'),
        fc.oneof(
          fc.string({ unit: fc.constantFrom('}', '{', '"', '\\', ',', 'a', ':', '\u00e9', '\u0001'), maxLength: 12 }),
          fc.string({ unit: 'binary', maxLength: 20 }),
        ),
        (i, member, to) => {
          const value = JSON.parse(receipts[i]!) as Record<string, unknown>;
          value.sig = { ...(value.sig as object), [member]: to };
          expectAgreement(canonicalJson(value));
        },
      ),
      { numRuns: fuzzRuns(400), seed: 34 },
    );
  });

  it('agrees on integers written in every other form, and on the longest it reads itself', () => {
    const forms = ['-0', '0', '01', '-01', '1.0', '1e0', '1E0', '1.', '-', '+1', '-1', '999999999999999'];
    const longer = ['9007199254740991', '9007199254740992', '1000000000000000'];
    const places = [/"seq":\d+/, /"durationMinutes":\d+/, /"entries":\[\d+/, /"errorCode":(null|-?\d+)/, /"size":\d+/];
    let scanned = 0;
    for (const text of receipts) {
      for (const place of places) {
        const match = place.exec(text);
        if (!match) continue;
        const name = match[0].slice(0, match[0].indexOf(':') + 1) + (match[0].includes('[') ? '[' : '');
        for (const form of [...forms, ...longer]) {
          const changed = text.replace(place, name + form);
          if (expectAgreement(changed)) scanned++;
          // More than 15 digits: always left to the general way, which reads them exactly.
          if (longer.includes(form)) expect(scanReceiptLine(changed)).toBeNull();
        }
      }
    }
    expect(scanned).toBeGreaterThan(0);
  });

  it('declines a line nested deeper than it steps, leaving it to the general way', () => {
    const suspension = receipts.find((t) => t.includes('"conditions":{'))!;
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    const text = suspension.replace(/"conditions":\{.*?\}\},/, `"conditions":${deep},`);
    expect(scanReceiptLine(text)).toBeNull();
    expect(general(text)).not.toBeNull();
  });
});
