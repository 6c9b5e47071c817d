/**
 * Receipt-log lines as OTLP log records and back from a collector's file export: records of each
 * origin put back in index order, a retried export's duplicates taken once, and a gap or a
 * conflicting duplicate refused.
 */
import { describe, expect, it } from 'vitest';
import type { SealedLine } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import {
  ReceiptRecordMapper,
  isCollectorLogExport,
  logsFromCollectorExport,
} from '../../src/receipts/receipt-log-records.js';
import { buildLogLines, fixedKey } from './fixtures.js';

const lines = buildLogLines({ count: 5, keyring: new Keyring([fixedKey('rec-k')]), checkpointEvery: 2 });

function exportLine(records: { body: string; attributes: Record<string, string | number> }[]): string {
  const logRecords = records.map((r) => ({
    body: { stringValue: r.body },
    attributes: Object.entries(r.attributes).map(([key, value]) => ({
      key,
      value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
    })),
  }));
  return JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords }] }] });
}

const mapper = new ReceiptRecordMapper();
const records = lines.map((text) => mapper.map({ line: JSON.parse(text) as SealedLine['line'], text, hash: 'h' }));

describe('collector file exports', () => {
  it('puts a log back in order from requests in any order, a retried request counted once', () => {
    const text = [exportLine(records.slice(4)), exportLine(records.slice(0, 5)), exportLine(records.slice(2, 4))].join(
      '\n',
    );
    expect(isCollectorLogExport(text.split('\n')[0]!)).toBe(true);
    expect(isCollectorLogExport(lines[0]!)).toBe(false);
    const logs = logsFromCollectorExport(text, 'export.json');
    expect([...logs.keys()]).toEqual(['a2a-replay/rec-k/rec-test']);
    expect(logs.get('a2a-replay/rec-k/rec-test')).toEqual(lines);
  });

  it('refuses a log with a line missing, and two different lines at one index', () => {
    expect(() => logsFromCollectorExport(exportLine([...records.slice(0, 2), ...records.slice(3)]), 'x.json')).toThrow(
      'x.json: line 2 of a2a-replay/rec-k/rec-test is missing from the export',
    );
    const forged = { ...records[1]!, body: records[1]!.body.replace('"seq":1', '"seq":9') };
    expect(() => logsFromCollectorExport(`${exportLine(records)}\n${exportLine([forged])}`, 'x.json')).toThrow(
      'x.json:2: two different lines 1 of a2a-replay/rec-k/rec-test',
    );
  });
});
