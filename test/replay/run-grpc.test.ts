/**
 * `a2a-replay run` re-drives recorded gRPC calls in their binding (docs/design.md §8, §16): a
 * session recorded from real gRPC traffic with the reference peer (unary calls, a not-found error
 * with its ErrorInfo, a stream, a pause with a wrong token and a resume on a stream that stays
 * open across PAUSED) replays to a pass against the embedded peer; a changed answer or error is
 * drift; a gRPC call run cannot make fails naming its line and seq. Replayed in-process as `run`
 * replays (`replayRecordings`, rendered as `run` prints it: test/helpers/run-report.ts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { replayReport } from '../helpers/run-report.js';
import { recordGrpcSession } from './grpc-session.js';

let dir = '';
let recording = '';

function rec(value: JsonValue | undefined): Record<string, JsonValue> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
  return value;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-grpc-'));
  recording = join(dir, 'grpc.jsonl');
  await recordGrpcSession(recording);
  const update = await replayReport([recording], { update: true });
  expect(update.stdout).not.toMatch(/rewritten/);
  expect(update.code).toBe(0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A copy of the recording with `edit` applied to its entries, and its golden receipts beside it. */
async function edited(name: string, edit: (entries: Record<string, JsonValue>[]) => void): Promise<string> {
  const lines = (await readFile(recording, 'utf8')).trimEnd().split('\n');
  const entries = lines.slice(1).map((line) => JSON.parse(line) as Record<string, JsonValue>);
  edit(entries);
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, [lines[0], ...entries.map((e) => JSON.stringify(e))].join('\n') + '\n');
  await writeFile(join(dir, `${name}.receipts.jsonl`), await readFile(join(dir, 'grpc.receipts.jsonl')));
  return file;
}

function find(
  entries: Record<string, JsonValue>[],
  test: (e: Record<string, JsonValue>) => boolean,
): Record<string, JsonValue> {
  const found = entries.find(test);
  if (!found) throw new Error('no such entry');
  return found;
}

describe('run over gRPC', () => {
  it('replays a gRPC session against the embedded peer to a pass', async () => {
    const text = await readFile(recording, 'utf8');
    expect(text).toContain('"path":"/lf.a2a.v1.pause.A2APauseService/ResumeTask"');
    expect(text).toContain('"reason":"RESUME_TOKEN_MISMATCH"');
    expect(text).toContain('"state":"TASK_STATE_PAUSED"');
    const r = await replayReport([recording]);
    expect(r.stdout).toMatch(/^PASS +.*grpc\.jsonl/m);
    expect(r.code).toBe(0);
  });

  it('drifts on a gRPC error whose status or ErrorInfo differs from the recorded one', async () => {
    const file = await edited('reason', (entries) => {
      const wrong = find(entries, (e) => e.kind === 'response' && e.grpc !== undefined && rec(e.grpc).status === 9);
      const grpc = rec(wrong.grpc);
      const info = rec((rec(grpc.details).details as JsonValue[])[0]);
      info.reason = 'INVALID_TASK_STATE';
      grpc.status = 5;
    });
    const r = await replayReport([file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/errorCode: -32010 → -32011/);
    expect(r.stdout).toMatch(/grpcStatus: 5 → 9/);
    expect(r.stdout).toContain(
      'content /grpc/details/details/0/reason: "INVALID_TASK_STATE" → "RESUME_TOKEN_MISMATCH"',
    );
  });

  it('drifts on a streamed message whose content differs', async () => {
    const file = await edited('artifact', (entries) => {
      const artifact = find(entries, (e) => e.kind === 'event' && rec(e.body).artifactUpdate !== undefined);
      rec(rec(rec(artifact.body).artifactUpdate).artifact).name = 'renamed';
    });
    const r = await replayReport([file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('content /artifactUpdate/artifact/name: "renamed" → "step 1 of 1"');
  });

  it('cancels a live stream where the recording shows the client cancelling it', async () => {
    // The client of the streamed send cancels after its first message, before it moves the clock:
    // the messages after it and the status are gone, an end with `cancelled` right after it.
    const file = await edited('cancelled', (entries) => {
      const request = find(entries, (e) => rec(e.http).path === '/lf.a2a.v1.A2AService/SendStreamingMessage');
      const xid = request.xid;
      const events = entries.filter((e) => e.xid === xid && e.kind === 'event');
      const end = find(entries, (e) => e.xid === xid && e.kind === 'end');
      for (const gone of [...events.slice(1), end]) entries.splice(entries.indexOf(gone), 1);
      end.grpc = { cancelled: true };
      end.http = { method: 'POST', path: '/lf.a2a.v1.A2AService/SendStreamingMessage' };
      entries.splice(entries.indexOf(events[0] as Record<string, JsonValue>) + 1, 0, end);
      entries.forEach((e, i) => (e.seq = i + 1));
    });
    const update = await replayReport([file], { update: true });
    expect(update.stdout).not.toMatch(/rewritten/);
    expect(update.code).toBe(0);
    const r = await replayReport([file]);
    expect(r.stdout).toMatch(/^PASS +.*cancelled\.jsonl/m);
    expect(r.code).toBe(0);
  });

  it('refuses a recorded gRPC call of no known method, naming its line and seq', async () => {
    const file = await edited('unknown', (entries) => {
      const get = find(entries, (e) => e.kind === 'request' && rec(e.http).path === '/lf.a2a.v1.A2AService/GetTask');
      rec(get.http).path = '/lf.a2a.v1.A2AService/GetTasks';
    });
    const r = await replayReport([file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /line 4 \(seq 3\): the recorded gRPC call cannot be sent: \/lf\.a2a\.v1\.A2AService\/GetTasks is no method/,
    );
  });

  it('fails naming the first gRPC call when the live peer has no gRPC endpoint', async () => {
    // A peer whose card lists no GRPC interface.
    const server: Server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'json only', supportedInterfaces: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await replayReport([recording], { peer: url });
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(/line 2 \(seq 1\): the recording holds a gRPC call .*pass --grpc-peer HOST:PORT/);
    } finally {
      server.close();
    }
  });

  it('fails as infrastructure when --grpc-peer cannot be reached', async () => {
    const r = await replayReport([recording], { grpcPeer: '127.0.0.1:9' });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/cannot reach the gRPC peer at 127\.0\.0\.1:9/);
  });
});
