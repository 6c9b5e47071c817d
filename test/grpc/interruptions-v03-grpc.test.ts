/**
 * A2A v0.3 gRPC interruptions end to end over real sockets, in-process through the public entries
 * (docs/design.md §14.9, §14.10, §16): a stock `@a2a-js/sdk` 0.3.14 gRPC server (package `a2a.v1`)
 * asks for approval — a question, and a tool-call gate whose confirmation DataPart comes in the
 * event before `input-required` — and the stock 0.3.14 gRPC client answers through the recorder
 * (`startRecorder` with `key` and `principalFrom: 'jwt-sub'`, what `record --key --principal-from
 * jwt-sub` starts): one InterruptionReceipt per gate, a ContinuationReceipt naming who answered,
 * an approval never given `never_continued` in `lost` (exit 1), `audit --kind interruption`
 * listing them, `verify --recording` passing (each as the call the command makes: `lostPauses`,
 * `auditLogSet`, `verifyLogSet`); `replayRecordings` against the same server (what `run --peer`
 * calls) passes with the receipts derived again; the mock (`startMockServer`) serves the v0.3 gRPC
 * client what it got.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, MessageSendParams, Part, Task } from 'a2a-sdk-v03';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startRecorder } from '../../src/public/record.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { replayReport } from '../helpers/run-report.js';
import { bearer } from '../helpers/jwt.js';
import {
  type SdkV03InputPeer,
  V03_PROMPT_TEXT,
  startSdkV03InputPeer,
  toolConfirmation,
} from '../fixtures/sdk-v03-input-peer.js';

type Json = Record<string, unknown>;

let dir = '';
let key = '';
let out = '';
let log = '';
/** What the client saw through the recorder, in order. */
let seen: unknown[] = [];
let ids: { asked: string; tool: string; ignored: string } = { asked: '', tool: '', ignored: '' };
let acts: string[] = [];

/** The `host:port` gRPC target of an http URL (the recorder and the mock serve gRPC on their port). */
const targetOf = (url: string): string => new URL(url).host;

/** A stock 0.3.14 gRPC call's options: the caller's JWT as `authorization` metadata. */
const as = (sub: string) => ({ serviceParameters: { authorization: bearer(sub) } });

const send = (messageId: string, parts: Part[], taskId?: string, contextId?: string): MessageSendParams => ({
  message: {
    kind: 'message',
    messageId,
    role: 'user',
    parts,
    ...(taskId === undefined ? {} : { taskId }),
    ...(contextId === undefined ? {} : { contextId }),
  },
});

/**
 * One approval session of the stock v0.3 gRPC client: a question answered by alice, a tool-call
 * gate on a stream approved by alice with the call id the agent minted, a question nobody answers.
 */
async function approvalSession(endpoint: string): Promise<unknown[]> {
  const client = new GrpcTransport({ endpoint });
  const out: unknown[] = [];
  const asked = (await client.sendMessage(send('m-ask', [{ kind: 'text', text: 'deploy' }]), as('bob'))) as Task;
  out.push(asked);
  out.push(
    await client.sendMessage(send('m-yes', [{ kind: 'text', text: 'yes' }], asked.id, asked.contextId), as('alice')),
  );
  // GetTask names the task as a resource (`tasks/{id}`): replay maps the id inside the name.
  out.push(await client.getTask({ id: asked.id }, as('bob')));
  const events: unknown[] = [];
  for await (const event of client.sendMessageStream(send('m-tool', [{ kind: 'text', text: 'tool' }]), as('bob')))
    events.push(event);
  out.push(events);
  const last = events.at(-1) as { taskId: string; contextId: string };
  const callId = /"callId":"([^"]+)"/.exec(JSON.stringify(events))?.[1] ?? '';
  const approval: Part = { kind: 'data', data: { callId, outcome: 'approved' } };
  out.push(await client.sendMessage(send('m-ok', [approval], last.taskId, last.contextId), as('alice')));
  out.push(await client.sendMessage(send('m-again', [{ kind: 'text', text: 'deploy again' }]), as('bob')));
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interruptions-v03-grpc-'));
  key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'v03-grpc' }).keyFile()), { mode: 0o600 });
  out = join(dir, 'session.jsonl');
  log = join(dir, 'session.receipts.jsonl');
  const peer: SdkV03InputPeer = await startSdkV03InputPeer({ grpc: true });
  try {
    const warnings: string[] = [];
    const recorder = await startRecorder({
      upstream: peer.url,
      grpcUpstream: peer.grpcUrl,
      out,
      key,
      principalFrom: 'jwt-sub',
      warn: (l) => warnings.push(l),
    });
    try {
      seen = await approvalSession(targetOf(recorder.url));
    } finally {
      // `record` exits 0 when every line was written.
      expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
    }
    acts = peer.acts.map((a) => a.act);
  } finally {
    await peer.close();
  }
  const [asked, , , events, , ignored] = seen as [Task, Task, Task, { taskId: string }[], Task, Task];
  ids = { asked: asked.id, tool: events.at(-1)?.taskId ?? '', ignored: ignored.id };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function receiptsOf(file: string): Promise<Json[]> {
  const lines = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  return lines.filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
}

describe('a stock 0.3.14 agent asking for approval over v0.3 gRPC, through record --key --principal-from', () => {
  it('is asked and answered as the client saw it', () => {
    const [asked, answered, got, events, approved, ignored] = seen as [Task, Task, Task, Json[], Task | Message, Task];
    expect(asked.status.state).toBe('input-required');
    expect(answered.status.state).toBe('completed');
    expect(got).toMatchObject({ id: asked.id, status: { state: 'completed' } });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    expect((approved as Task).status.state).toBe('completed');
    expect(ignored.status.state).toBe('input-required');
    // The agent's own account: it asked three times and went on twice.
    expect(acts).toEqual(['asked', 'continued', 'asked', 'continued', 'asked']);
  });

  it('receipts each gate and who answered it, each request recorded as A2A 0.3', async () => {
    const receipts = await receiptsOf(log);
    expect(receipts.filter((r) => r.type === 'InterruptionReceipt')).toMatchObject([
      {
        taskId: ids.asked,
        state: 'TASK_STATE_INPUT_REQUIRED',
        binding: 'GRPC',
        promptHash: hashCanonical([{ text: V03_PROMPT_TEXT }]),
      },
      {
        taskId: ids.tool,
        state: 'TASK_STATE_INPUT_REQUIRED',
        binding: 'GRPC',
        promptHash: hashCanonical([{ data: toolConfirmation('call-1') }]),
      },
      { taskId: ids.ignored, state: 'TASK_STATE_INPUT_REQUIRED' },
    ]);
    expect(receipts.filter((r) => r.type === 'ContinuationReceipt')).toMatchObject([
      { taskId: ids.asked, cause: 'message', principal: 'jwt:sub=alice', inputHash: hashCanonical([{ text: 'yes' }]) },
      {
        taskId: ids.tool,
        cause: 'message',
        principal: 'jwt:sub=alice',
        inputHash: hashCanonical([{ data: { callId: 'call-1', outcome: 'approved' } }]),
      },
    ]);
    const requests = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as Json)
      .filter((e) => e.kind === 'request');
    expect(requests.map((e) => [(e.http as Json).path, e.a2aVersion])).toEqual([
      ['/a2a.v1.A2AService/SendMessage', '0.3'],
      ['/a2a.v1.A2AService/SendMessage', '0.3'],
      ['/a2a.v1.A2AService/GetTask', '0.3'],
      ['/a2a.v1.A2AService/SendStreamingMessage', '0.3'],
      ['/a2a.v1.A2AService/SendMessage', '0.3'],
      ['/a2a.v1.A2AService/SendMessage', '0.3'],
    ]);
  });

  it('verifies against the recording, audits the interruptions, names the unanswered one never_continued', async () => {
    const verified = await verifyVerdict([log], key, { checks: { recording: out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);

    const audit = await auditVerdict([log], key, { kind: 'interruption' });
    expect(audit.code).toBe(0);
    expect(audit.rows).toMatchObject([
      { kind: 'interruption', taskId: ids.asked, outcome: 'continued', continuedBy: 'jwt:sub=alice' },
      { kind: 'interruption', taskId: ids.tool, outcome: 'continued', continuedBy: 'jwt:sub=alice' },
      { kind: 'interruption', taskId: ids.ignored },
    ]);

    const lost = await lostVerdict([out]);
    const listed = JSON.stringify(lost.json);
    expect(lost.code, listed).toBe(1);
    expect(lost.json).toMatchObject({ understood: true, dialects: { '0.3': 6 } });
    expect(listed).toContain(ids.ignored);
    expect(listed).toContain('never_continued');
    expect(listed).not.toContain(ids.asked);
  });

  it('replays against the same server to a PASS, deriving the receipts again', async () => {
    const peer = await startSdkV03InputPeer({ grpc: true });
    try {
      const r = await replayReport([out], { peer: peer.url, key, json: true });
      expect(r.code, r.stdout).toBe(0);
      // The three interruptions and two continuations derived from the live answers equal the log's.
      expect(JSON.parse(r.stdout)).toMatchObject({
        exitCode: 0,
        results: [
          {
            outcome: 'match',
            exchanges: 6,
            error: null,
            receipts: { expectedReceipts: 5, actualReceipts: 5, differences: [], signed: true },
          },
        ],
      });
      // The live agent asked three times and went on twice again (its tasks replayed side by side).
      expect(peer.acts.map((a) => a.act).sort()).toEqual([...acts].sort());
    } finally {
      await peer.close();
    }
  });

  it('serves the stock v0.3 gRPC client the recorded results from mock', async () => {
    const mock = await startMock([out]);
    let stopped;
    try {
      expect(await approvalSession(targetOf(mock.url))).toEqual(seen);
    } finally {
      stopped = await stopMock(mock);
    }
    expect(stopped).toEqual({ unrequested: [], unmatched: [] });
  });
});
