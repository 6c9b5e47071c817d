/**
 * @module bench/replay-recording
 * Writes a long recording for the replay benchmarks, as `record` would have written it in front
 * of `a2a-replay peer --deterministic`, and its golden receipts: T tasks created once
 * (SendMessage `work:0`, which completes at once), then N GetTask exchanges of them, round robin.
 * The answers are the reference peer's own: it runs in this process once, answers the
 * SendMessages and one GetTask per task, and each later GetTask repeats that answer under its
 * own JSON-RPC id. The recording is written line by line, so N may be a million.
 *
 * The golden log is derived by the replay's own code from the recording's first entries alone: a
 * completed task with no pause holds no receipt, so it is the header and the closing checkpoint
 * bound to the whole file, as `run --update` would write it.
 *
 *   npx tsx bench/replay-recording.ts --out /tmp/gets.jsonl [--gets 200000] [--tasks 8]
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { canonicalJson, type JsonValue } from '../src/canonical/canonical-json.js';
import { ManualClock } from '../src/clock.js';
import { DETERMINISTIC_EPOCH } from '../src/peer/epoch.js';
import { startPeer } from '../src/peer/start-peer.js';
import type { RecordingEntry, RecordingHeader } from '../src/recording/format.js';
import { readRecordingBinding } from '../src/receipts/recording-binding.js';
import { deriveReceiptLog, unsignedKeyring } from '../src/replay/derive-receipts.js';
import { goldenPathFor } from '../src/replay/run-recording.js';
import { TOOL_NAME } from '../src/version.js';
import { arg } from './_lib.js';

const HEADERS = { 'a2a-version': '1.0', 'content-type': 'application/json' };

/** POSTs a JSON-RPC call to the peer and resolves with the parsed answer. */
function call(url: string, body: JsonValue): Promise<JsonValue> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: HEADERS }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve(JSON.parse(text) as JsonValue));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The answer with another JSON-RPC id. */
function withId(answer: JsonValue, id: number): JsonValue {
  return { ...(answer as { [key: string]: JsonValue }), id };
}

/** Writes `file` (N GetTask exchanges over T tasks) and its golden log; resolves with the entries written. */
export async function writeGetTaskRecording(file: string, gets: number, tasks: number): Promise<number> {
  const peer = await startPeer({
    deterministic: true,
    clock: new ManualClock(Date.parse(DETERMINISTIC_EPOCH)),
    seed: 0,
    port: 0,
  });
  const card = (await (await fetch(`${peer.url}/.well-known/agent-card.json`)).json()) as JsonValue;
  const out = createWriteStream(file, { mode: 0o600 });
  const createdAt = '2026-12-07T00:00:00.000Z';
  const header: RecordingHeader = {
    type: 'recording',
    version: 1,
    id: `rec-bench-gets-${gets}`,
    createdAt,
    tool: TOOL_NAME,
    target: { url: peer.url },
    agentCard: card,
  } as RecordingHeader;
  let seq = 0;
  let rpcId = 0;
  let buffered: string[] = [];
  const start = Date.parse(createdAt);
  const write = async (entry: Omit<RecordingEntry, 'seq' | 'at'>): Promise<void> => {
    seq += 1;
    const line = { ...entry, seq, at: new Date(start + seq).toISOString() } as RecordingEntry;
    buffered.push(`${canonicalJson(line as unknown as JsonValue)}\n`);
    if (buffered.length >= 2000) {
      const chunk = buffered.join('');
      buffered = [];
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  };
  const exchange = async (xid: string, body: JsonValue, answer: JsonValue): Promise<void> => {
    await write({ xid, kind: 'request', http: { method: 'POST', path: '/', headers: HEADERS }, body });
    const http = { method: 'POST', path: '/', status: 200, headers: { 'content-type': 'application/json' } };
    await write({ xid, kind: 'response', http, body: answer });
  };
  const first: RecordingEntry[] = [];
  try {
    out.write(`${canonicalJson(header as unknown as JsonValue)}\n`);
    const taskIds: string[] = [];
    const answers: JsonValue[] = [];
    for (let t = 0; t < tasks; t++) {
      rpcId += 1;
      const send: JsonValue = {
        jsonrpc: '2.0',
        id: rpcId,
        method: 'SendMessage',
        params: { message: { messageId: `m-${t}`, role: 'ROLE_USER', parts: [{ text: 'work:0' }] } },
      };
      const answer = await call(peer.url, send);
      const task = (answer as { result: { task: { id: string } } }).result.task.id;
      taskIds.push(task);
      await exchange(`x-send-${t}`, send, answer);
      const get = await call(peer.url, { jsonrpc: '2.0', id: 0, method: 'GetTask', params: { id: task } });
      answers.push(get);
    }
    for (let i = 0; i < gets; i++) {
      rpcId += 1;
      const t = i % tasks;
      const body: JsonValue = { jsonrpc: '2.0', id: rpcId, method: 'GetTask', params: { id: taskIds[t] as string } };
      await exchange(`x-get-${i}`, body, withId(answers[t] as JsonValue, rpcId));
    }
    out.write(buffered.join(''));
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
    await peer.close();
  }
  const derived = await deriveReceiptLog({
    header,
    entries: first,
    keyring: unsignedKeyring(),
    tool: TOOL_NAME,
    recording: await readRecordingBinding(file),
  });
  await writeFile(goldenPathFor(file), `${derived.lines.join('\n')}\n`, { mode: 0o600 });
  return seq;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = arg('out', '');
  if (out === '') throw new Error('--out FILE is needed');
  const n = await writeGetTaskRecording(out, Number(arg('gets', '20000')), Number(arg('tasks', '8')));
  process.stdout.write(`${out}: ${n} entries\n`);
}
