/**
 * Receipts through the telemetry pipeline: the recorder of `record --otlp-logs` (`startRecorder`
 * with `otlpLogs`, in the test's process) ships every line of its receipt log (header, receipts,
 * checkpoints) as an OTLP log record over OTLP/HTTP protobuf to a receiver on 127.0.0.1 that
 * decodes it with the official schema's generated code, and what `audit`, `verify` and `lost`
 * conclude of the collector's export is read with their library calls
 * (test/helpers/verdicts.ts); a collector named by OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (the
 * recorder's `env`) that is down and comes back gets every record, and the file never depends on
 * it. The reference peer runs in the test's process.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { auditTableLines } from '../../cli/audit-tables.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { PeerClient } from '../peer/peer-client.js';
import { type OtlpLogsRequest, logRecordsOf, recordAttributes, startLogsReceiver } from './otlp-logs-receiver.js';

let dir: string;
let peer: RunningPeer;
let key: string;

async function pauseAndResume(url: string, times: number): Promise<void> {
  const client = new PeerClient(url);
  for (let i = 0; i < times; i++) {
    const task = await client.start('work:2');
    const paused = await client.result<{ pause: { resumeToken: string } }>('PauseTask', {
      taskId: task.id,
      reason: `approval ${i}`,
      mode: 'interrupt_immediate',
    });
    await client.result('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  }
}

/** Each record's body by its index, checking no index comes twice with another body. */
function bodiesByIndex(
  requests: OtlpLogsRequest[],
): Map<number, { body: string; attrs: Record<string, string | undefined> }> {
  const out = new Map<number, { body: string; attrs: Record<string, string | undefined> }>();
  for (const record of requests.flatMap(logRecordsOf)) {
    const attrs = recordAttributes(record);
    const index = Number(attrs['a2a.receipt_log.index']);
    const body = record.body?.stringValue ?? '';
    expect(out.get(index)?.body ?? body).toBe(body);
    out.set(index, { body, attrs });
  }
  return out;
}

/** Waits until `check` holds, giving the recorder's own timers their turn. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`never happened: ${what}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-otlp-logs-'));
  key = join(dir, 'k.key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'logs' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});

afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

describe('record --otlp-logs', () => {
  it('ships a record per receipt-log line with its hash; audit reads them back from a collector export', async () => {
    const receiver = await startLogsReceiver();
    try {
      const out = join(dir, 'up.jsonl');
      // What `record` would say on stderr; no OTEL_* variable read.
      const said: string[] = [];
      const recorder = await startRecorder({
        ...{ upstream: peer.url, out, key, checkpointEvery: 1, otlpLogs: receiver.url },
        ...{ env: {}, warn: (line: string) => said.push(line) },
      });
      let complete = false;
      try {
        await pauseAndResume(recorder.url, 2);
      } finally {
        complete = (await recorder.close()).complete;
      }
      expect(complete).toBe(true);
      expect(said.join('\n')).not.toMatch(/otlp-logs/);
      const lines = (await readFile(join(dir, 'up.receipts.jsonl'), 'utf8')).trimEnd().split('\n');
      const shipped = bodiesByIndex(receiver.requests);
      expect(logRecordsOf({ resourceLogs: receiver.requests.flatMap((r) => r.resourceLogs ?? []) })).toHaveLength(
        lines.length,
      );
      expect([...shipped.keys()].sort((a, b) => a - b)).toEqual(lines.map((_, i) => i));
      const origins = new Set<string | undefined>();
      for (const [index, { body, attrs }] of shipped) {
        const line = JSON.parse(lines[index]!) as { type: string; taskId?: string; seq?: number };
        expect(body).toBe(lines[index]);
        expect(attrs['a2a.receipt.hash']).toBe(sha256Prefixed(lines[index]!));
        expect(attrs['a2a.receipt.type']).toBe(line.type);
        expect(attrs['a2a.receipt.kid']).toBe('logs');
        expect(attrs['a2a.task.id']).toBe(line.taskId);
        expect(attrs['a2a.receipt.seq']).toBe(line.seq === undefined ? undefined : String(line.seq));
        origins.add(attrs['a2a.receipt_log.origin']);
      }
      expect([...origins]).toEqual([expect.stringMatching(/^a2a-replay\/logs\/rec-/)]);

      // The receiver's records as a collector's `file` exporter writes them: one request a line.
      const exported = join(dir, 'collector-export.json');
      await writeFile(exported, receiver.requests.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const log = join(dir, 'up.receipts.jsonl');
      const fromFile = await auditVerdict([log], key);
      const fromExport = await auditVerdict([exported], key);
      expect(fromFile.code).toBe(0);
      expect(fromExport.why).toBeNull();
      expect(fromExport.code).toBe(0);
      expect(fromExport.rows).toEqual(fromFile.rows);
      expect(fromFile.rows.length).toBe(2);
      // The table `audit` prints of each.
      expect([...auditTableLines(fromExport.audit!.rows)]).toEqual([...auditTableLines(fromFile.audit!.rows)]);
      const verified = await verifyVerdict([exported], key);
      expect(verified.code).toBe(0);
      expect(verified.lines.join('\n')).toContain(`${exported}: ok: 4 receipts`);
      expect((await lostVerdict([exported], { keys: key })).code).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('keeps what a collector that is down did not take, says so once, and ships it all when it is back', async () => {
    const probe = await startLogsReceiver();
    const port = probe.port;
    await probe.close();
    const out = join(dir, 'down.jsonl');
    // What `record` would say on stderr, a line each.
    const said: string[] = [];
    const recorder = await startRecorder({
      ...{ upstream: peer.url, out, key, checkpointEvery: 1, warn: (line: string) => said.push(line) },
      // The collector as the environment names it to `record`; the time-out variable shortens each
      // export's retrying of the refused connection (10 s by default).
      env: {
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `http://127.0.0.1:${port}/v1/logs`,
        OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '300',
      },
    });
    let receiver: Awaited<ReturnType<typeof startLogsReceiver>> | undefined;
    try {
      await pauseAndResume(recorder.url, 1);
      await until(() => /did not take receipt records/.test(said.join('\n')), 'the outage said');
      await pauseAndResume(recorder.url, 1);
      receiver = await startLogsReceiver(port);
      expect((await recorder.close()).complete).toBe(true);
      const stderr = said.join('\n');
      expect(stderr.match(/did not take receipt records/g)).toHaveLength(1);
      expect(stderr).toContain('the receipt log file is complete without them');
      expect(stderr).not.toMatch(/not shipped/);
      const lines = (await readFile(join(dir, 'down.receipts.jsonl'), 'utf8')).trimEnd().split('\n');
      const shipped = bodiesByIndex(receiver.requests);
      expect(lines.map((_, i) => shipped.get(i)?.body)).toEqual(lines);
      // The file verifies on its own: the collector never held anything up.
      expect((await verifyVerdict([join(dir, 'down.receipts.jsonl')], key)).code).toBe(0);
    } finally {
      await recorder.close();
      await receiver?.close();
    }
  });
});
