/**
 * What the CLI prints of client, peer or file content cannot act on a terminal: `printable`
 * escapes every control, separator and bidirectional character, and the places that print such
 * content (the run report, `verify`, `audit`, error lines) go through it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical/canonical-json.js';
import { printable } from '../src/printable.js';
import { ReceiptChain } from '../src/receipts/chain.js';
import { buildSuspensionDraft } from '../src/receipts/drafts.js';
import { Keyring, generateReceiptKey } from '../src/receipts/keys.js';
import { renderRecordingText } from '../src/replay/reporters/text.js';
import type { RecordingResult } from '../src/replay/result.js';
import { ROOT, runCli } from './helpers/cli.js';
import { tempDir } from './helpers/temp-dir.js';

/** An escape or a carriage return anywhere: what printed output must not hold. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const RAW = /[\u001b\r]/;

describe('printable', () => {
  it('escapes what could move, clear, hide, break or reorder text, and nothing else', () => {
    expect(printable('\u001b[2J\r\nPASS\t\u0000\u007f\u009b\u2028\u2029\u202e\u2066x')).toBe(
      '\\u001b[2J\\u000d\\u000aPASS\\u0009\\u0000\\u007f\\u009b\\u2028\\u2029\\u202e\\u2066x',
    );
    const plain = 'task-1 café 😀 "quoted" \\ back';
    expect(printable(plain)).toBe(plain);
  });
});

describe('what is printed', () => {
  it('renders a drift whose live strings hold escapes and newlines on its own lines, inert', () => {
    const evil = '\u001b[0m\u001b[2J\u001b[HPASS    x.jsonl\n1 recording: 1 match (exit 0)\u001b[8m';
    const result = {
      recording: 'x.jsonl',
      golden: 'x.receipts.jsonl',
      outcome: 'drift',
      exchanges: 1,
      durationMs: 1,
      causes: [],
      drift: [
        {
          type: 'missing',
          expected: { seq: 2, kind: 'response', method: 'ResumeTask', lane: null, shape: `response cause ${evil}` },
          reason: evil,
        },
      ],
      timelines: [{ lane: 'task:t', expected: ['WORKING'], actual: [evil] }],
      notes: [],
    } as unknown as RecordingResult;
    for (const color of [false, true]) {
      const text = renderRecordingText(result, { color });
      const lines = text.split('\n');
      expect(lines.filter((l) => l.includes('1 recording: 1 match'))).toEqual(
        lines.filter((l) => l.includes('\\u000a1 recording: 1 match')),
      );
      // Only the status label may carry an escape sequence, and only when colour is asked for.
      expect(text.replace('\u001b[31mDRIFT  \u001b[0m', 'DRIFT  ')).not.toMatch(RAW);
      expect(lines[0]?.endsWith('x.jsonl (1 exchanges, 0.0 s)')).toBe(true);
    }
  });

  it('prints a forged key id in a failing log as text, not as terminal commands', async () => {
    const dir = await tempDir('printable-');
    const golden = readFileSync(join(ROOT, 'golden/caller-pause-finish-step/recording.receipts.jsonl'), 'utf8');
    const forged = join(dir, 'forged.receipts.jsonl');
    const lines = golden.split('\n');
    lines[1] = (lines[1] as string).replace(/"kid":"[^"]*"/, '"kid":"\\u001b[2J\\u001b[Hok: all good\\u001b[8m"');
    writeFileSync(forged, lines.join('\n'));
    const key = join(dir, 'key.json');
    writeFileSync(key, readFileSync(join(ROOT, 'golden/test-key.json')), { mode: 0o600 });
    for (const command of ['verify', 'audit']) {
      const r = await runCli([command, forged, '--key', key]);
      expect(r.code, command).toBe(1);
      expect(`${r.stdout}${r.stderr}`, command).toContain('\\u001b[2J\\u001b[Hok: all good\\u001b[8m');
      expect(`${r.stdout}${r.stderr}`, command).not.toContain('\u001b');
    }
  });

  it('prints a pause reason and principal a client chose in the audit and lost tables as text', async () => {
    const dir = await tempDir('printable-');
    const key = generateReceiptKey({ kid: 'k' });
    const chain = new ReceiptChain({
      keyring: new Keyring([key]),
      recording: 'rec',
      createdAt: '2026-01-01T00:00:00.000Z',
      tool: 'a2a-replay@test',
      checkpointEvery: 0,
    });
    const reason = '\r\u001b[2Ktask-1  agent  jwt:sub=agent-7  maintenance\u001b[8m';
    const sealed = chain.sealSuspension(
      buildSuspensionDraft({
        taskId: 'task-\u001b[8m1',
        initiatedBy: 'PAUSE_INITIATOR_AGENT',
        principal: 'jwt:sub=mallory\r\nINJECTED',
        via: 'AwaitTaskResumption',
        reason,
        pausedAt: '2026-01-01T00:00:00.000Z',
        observedAt: '2026-01-01T00:00:00.000Z',
        entries: [1],
        span: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) },
      }),
    );
    const log = join(dir, 'evil.receipts.jsonl');
    writeFileSync(log, `${[chain.header.text, sealed.receipt.text, chain.close()?.text].join('\n')}\n`);
    const keyFile = join(dir, 'key.json');
    writeFileSync(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
    for (const command of ['audit', 'lost']) {
      const r = await runCli([command, log, '--key', keyFile]);
      const out = `${r.stdout}${r.stderr}`;
      expect(out, command).not.toMatch(RAW);
      expect(out, command).toContain('task-\\u001b[8m1');
    }
    const audit = await runCli(['audit', log, '--key', keyFile]);
    expect(audit.stdout).toContain('jwt:sub=mallory\\u000d\\u000aINJECTED');
    expect(audit.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(audit.stdout).toContain('agent-pause-requested-by-other-principal');
  });
});
