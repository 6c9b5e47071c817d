/**
 * Recorded headers are the same whichever shape they come in: a record of lower-case string
 * values (what node:http hands a server, taken in one pass) gives exactly what the same headers
 * give as name/value pairs (the general merge). A redactor that remembers its verdict per header
 * name redacts exactly as a fresh one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordedHeaders } from '../../src/intercept/http-headers.js';
import { RedactionMarks } from '../../src/recording/redaction-mark.js';
import { Redactor } from '../../src/recording/redaction.js';
import { adjustSecretRules } from '../../src/recording/secret-rules.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const NAMES = [
  'accept',
  'authorization',
  'connection',
  'content-length',
  'content-type',
  'cookie',
  'host',
  'keep-alive',
  'sec-fetch-mode',
  'te',
  'transfer-encoding',
  'upgrade',
  'x-api-key',
  'x-custom',
  'x-trace',
  'Content-Type',
  'X-Custom',
  '__proto__',
];
const CONNECTION_VALUES = ['keep-alive', 'close', 'x-custom', 'X-Trace, keep-alive', 'upgrade, x-trace', ''];

const headerRecord = fc.dictionary(
  fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 6 })),
  fc.oneof(fc.constantFrom(...CONNECTION_VALUES), fc.string({ maxLength: 8 })),
  { maxKeys: 10 },
);
/** Only lower-case names, as node:http gives them, the Connection header often naming others. */
const lowerCaseRecord = fc.dictionary(
  fc.constantFrom(...NAMES.filter((name) => name === name.toLowerCase())),
  fc.constantFrom(...CONNECTION_VALUES, 'v'),
  { maxKeys: 10 },
);

describe('recordedHeaders', () => {
  it('records a lower-case record as it records the same headers given as pairs', () => {
    fc.assert(
      fc.property(fc.oneof(headerRecord, lowerCaseRecord), (record) => {
        const pairs = Object.entries(record);
        expect(recordedHeaders(record)).toStrictEqual(recordedHeaders(pairs));
      }),
      { numRuns: fuzzRuns(1000), seed: 9110 },
    );
  });

  it('drops hop-by-hop, transport-written and Connection-named headers from a node:http record', () => {
    const headers = {
      host: '127.0.0.1:1',
      connection: 'keep-alive, x-hop',
      'x-hop': 'gone',
      'content-length': '12',
      'sec-fetch-site': 'none',
      'content-type': 'application/json',
      'x-kept': 'kept',
    };
    expect(recordedHeaders(headers)).toStrictEqual({ 'content-type': 'application/json', 'x-kept': 'kept' });
    expect(recordedHeaders({ 'X-Kept': 'a', 'x-kept': 'b', 'set-cookie': ['c', 'd'], n: 1 })).toStrictEqual({
      'x-kept': 'a, b',
      'set-cookie': 'c, d',
      n: '1',
    });
  });
});

describe('Redactor.headers', () => {
  it('redacts with its remembered verdicts as a fresh redactor does, for any headers and lists', () => {
    const lists = fc.array(fc.constantFrom(...NAMES, 'X-Trace', 'x-missing'), { maxLength: 4 });
    const marks = new RedactionMarks(Buffer.alloc(32, 1));
    fc.assert(
      fc.property(fc.array(headerRecord, { minLength: 1, maxLength: 4 }), lists, lists, (all, names, keep) => {
        const rules = adjustSecretRules({ redact: names, keepHeaders: keep });
        const lower = all.map((record) => recordedHeaders(record));
        const redactor = new Redactor(marks, rules);
        for (let round = 0; round < 2; round++)
          for (const headers of lower)
            expect(redactor.headers(headers)).toStrictEqual(new Redactor(marks, rules).headers(headers));
      }),
      { numRuns: fuzzRuns(500), seed: 9111 },
    );
  });
});
