/**
 * The real `@a2a-js/sdk` client through the recorder with a key (`startRecorder`, as `record --key`
 * runs it) to the reference peer (`startPeer` deterministic, native and `legacyPause`), both in this
 * process over real sockets: a session with a caller pause, a rejected resume, a cancel while
 * paused, an agent self-park on an event and a timeout yields exactly the expected receipts, in a
 * log that verifies (`verifyLogSet`, what `verify` calls); the legacy peer yields the same receipts
 * except `via` (and what hangs on it: hashes, signatures). Given the recording, what `verify`,
 * `audit` and `lost` call tells a log swapped for another recording's, and a recording cut or
 * emptied.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import { Keyring, type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { RedactionMarks, derivedMarkKey } from '../../src/recording/redaction-mark.js';
import { auditVerdict, lostRefusal, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { userTextMessage } from '../intercept/sdk-echo-server.js';

let dir = '';
/** The peers and recorders a test started, closed after it even when an assertion stopped it early. */
const running: { close(): Promise<unknown> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-peer-'));
});
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

async function rpc(
  base: string,
  method: string,
  params: unknown,
  path = '/',
): Promise<{ result?: Record<string, unknown>; error?: { code: number } }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer ops-token' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number } };
}

const advance = (base: string, ms: number) => rpc(base, 'AdvanceClock', { ms }, '/control');

/** A status update that shows a pause: PAUSED (the SDK reads it as UNRECOGNIZED, -1) or the legacy envelope. */
function showsPause(event: unknown): boolean {
  const payload = (event as { payload?: { $case?: string; value?: Record<string, unknown> } }).payload;
  if (payload?.$case !== 'statusUpdate') return false;
  const value = payload.value ?? {};
  const state = (value.status as { state?: unknown } | undefined)?.state;
  const harn = (value.metadata as { harn?: { pause?: { state?: string } } } | undefined)?.harn;
  return state === -1 || harn?.pause?.state === 'paused';
}

/**
 * Waits for the stream's first event (the task exists), then drains the rest in the background;
 * `paused` resolves once the client holds the event that shows the pause — by then the recorder
 * has observed it (it releases that event only once its receipt is written), so what the test
 * sends next is seen after it, for a native and a legacy peer alike.
 */
async function started(stream: AsyncGenerator<unknown>): Promise<{ events: Promise<number>; paused: Promise<void> }> {
  const first = await stream.next();
  expect(first.done).toBe(false);
  let sawPause: () => void = () => undefined;
  const paused = new Promise<void>((resolve) => (sawPause = resolve));
  const events = (async () => {
    let n = 1;
    for await (const event of stream) {
      n++;
      if (showsPause(event)) sawPause();
    }
    return n;
  })();
  return { events, paused };
}

/** The session, driven by the SDK client (messages, streams, cancel) and raw calls (pause methods, control). */
async function session(base: string): Promise<void> {
  const client: Client = await new ClientFactory().createFromUrl(base);
  // 1. caller pause, a resume with a wrong token (rejected), then cancel while paused
  const sent = (await client.sendMessage({
    tenant: '',
    message: userTextMessage('work:3', 'm-1'),
    configuration: {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: true,
      taskPushNotificationConfig: undefined,
    },
    metadata: undefined,
  })) as { id: string };
  await advance(base, 1000);
  const paused = await rpc(base, 'PauseTask', { taskId: sent.id, reason: 'operator review' });
  expect(paused.error).toBeUndefined();
  expect((await rpc(base, 'ResumeTask', { taskId: sent.id, resumeToken: 'not-the-token' })).error?.code).toBe(-32011);
  await client.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
  // 2. the agent parks itself on an event; the event resumes it
  const parked = await started(
    client.sendMessageStream({
      tenant: '',
      message: userTextMessage('work:1 await:ci.done work:1', 'm-2'),
      configuration: undefined,
      metadata: undefined,
    }),
  );
  await advance(base, 1000);
  await parked.paused;
  await rpc(base, 'FireEvent', { name: 'ci.done' }, '/control');
  await advance(base, 1000);
  expect(await parked.events).toBeGreaterThan(2);
  // 3. a 30-minute pause that times out and fails the task
  const timed = await started(
    client.sendMessageStream({
      tenant: '',
      message: userTextMessage('work:1 await:approval:30:fail work:1', 'm-3'),
      configuration: undefined,
      metadata: undefined,
    }),
  );
  await advance(base, 1000);
  await timed.paused;
  await advance(base, 30 * 60 * 1000);
  expect(await timed.events).toBeGreaterThan(2);
}

interface ReceiptLine {
  type: string;
  [field: string]: unknown;
}

async function recordSession(
  legacy: boolean,
  key: ReceiptKey,
): Promise<{ receipts: ReceiptLine[]; file: string; recording: string; lines: number }> {
  const peer = await startPeer({ deterministic: true, legacyPause: legacy });
  running.push(peer);
  const out = join(dir, `${legacy ? 'legacy' : 'native'}.jsonl`);
  const recorder = await startRecorder({ upstream: peer.url, out, key, env: {} });
  running.push(recorder);
  await session(recorder.url);
  // Every line written and the log closed with its checkpoint: `record` exits 0 on SIGTERM.
  expect((await recorder.close()).complete).toBe(true);
  const recording = await readRecording(out);
  expect(recording.entries.length).toBeGreaterThan(20);
  const file = join(dir, `${legacy ? 'legacy' : 'native'}.receipts.jsonl`);
  const lines = (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as ReceiptLine);
  expect(lines[0]).toMatchObject({ type: 'ReceiptLog', recording: recording.header.id });
  expect(lines.at(-1)).toMatchObject({ type: 'Checkpoint', final: true, recording: { id: recording.header.id } });
  const recorded = (await readFile(out, 'utf8')).split('\n').length - 1;
  return { receipts: lines.filter((l) => l.type.endsWith('Receipt')), file, recording: out, lines: recorded };
}

/** What `a2a-replay verify LOG --key FILE --json` prints and exits with, as an auditor runs it. */
async function verify(file: string, keyring: Keyring): Promise<{ code: number | null; result: unknown }> {
  const run = await verifyVerdict([file], keyring);
  return { code: run.code, result: run.json };
}

/**
 * What `COMMAND LOG --key FILE --recording RECORDING` concludes for verify, audit and lost: its exit
 * code and what it says (printed, or refused with).
 */
async function withRecording(
  command: string,
  log: string,
  recording: string,
  keyring: Keyring,
): Promise<{ code: number; text: string }> {
  if (command === 'verify') {
    const r = await verifyVerdict([log], keyring, { checks: { recording } });
    return { code: r.code, text: r.lines.join('\n') };
  }
  if (command === 'audit') {
    // `audit` reads the recording itself; one it cannot read is a usage error (exit 2).
    const r = await auditVerdict([log], keyring, { recording }).catch((error: Error) => ({
      code: 2,
      why: error.message,
    }));
    return { code: r.code, text: r.why ?? '' };
  }
  // `lost` reads the recording's binding first: one it cannot read is a usage error (exit 2).
  const r = await lostVerdict([log], { keys: keyring, recording }).catch(() => null);
  if (r !== null) return { code: r.code, text: JSON.stringify(r.json) };
  const refused = await lostRefusal([log], { keys: keyring, recording });
  return { code: refused.code, text: refused.error };
}

const summary = (r: ReceiptLine): string =>
  r.type === 'SuspensionReceipt'
    ? `suspend ${String(r.initiatedBy)} via ${String(r.via)} principal=${String(r.principal)}`
    : `resume ${String(r.cause)} -> ${String(r.outcome)}${typeof r.errorCode === 'number' ? ` ${r.errorCode}` : ''}`;

it('records receipts that verify, alike for a native and a legacy peer, each log bound to its recording', async () => {
  const key = generateReceiptKey({ kid: 'e2e' });
  const keyring = new Keyring([key]);
  // An opaque bearer is named by its HMAC under the mark key the receipt key derives.
  const marks = new RedactionMarks(derivedMarkKey((data) => key.macOf([data])));

  const native = await recordSession(false, key);
  expect(native.receipts.map(summary)).toEqual([
    `suspend PAUSE_INITIATOR_CLIENT via PauseTask principal=bearer:hmac:${marks.digest('ops-token', 16)}`,
    'resume explicit_resume -> rejected -32011',
    'resume canceled -> canceled',
    'suspend PAUSE_INITIATOR_AGENT via statusUpdate principal=null',
    'resume condition_fired -> resumed',
    'suspend PAUSE_INITIATOR_AGENT via statusUpdate principal=null',
    'resume timeout -> failed',
  ]);
  const nativeVerified = await verify(native.file, keyring);
  expect(nativeVerified.result).toMatchObject({ ok: true, receipts: 7, closed: true });
  expect(nativeVerified.code).toBe(0);

  const legacy = await recordSession(true, key);
  const legacyVerified = await verify(legacy.file, keyring);
  expect(legacyVerified.result).toMatchObject({ ok: true, receipts: 7, closed: true });
  expect(legacyVerified.code).toBe(0);

  // The closing checkpoint binds each log to its recording as written: given both files, verify,
  // audit and lost tell a log swapped for another recording's, and a recording cut or emptied.
  const bound = await verifyVerdict([native.file], keyring, { checks: { recording: native.recording } });
  expect(bound.code).toBe(0);
  expect(bound.json).toMatchObject({ recordingCheck: 'bound', bound: { lines: native.lines } });
  for (const command of ['verify', 'audit', 'lost']) {
    const swapped = await withRecording(command, native.file, legacy.recording, keyring);
    expect(swapped.code, command).not.toBe(0);
    expect(swapped.text, command).toContain('belongs to another recording');
  }
  const text = await readFile(native.recording, 'utf8');
  const cut = join(dir, 'cut.jsonl');
  const emptied = join(dir, 'emptied.jsonl');
  await writeFile(cut, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
  await writeFile(emptied, text.slice(0, text.indexOf('\n') + 1));
  for (const recording of [cut, emptied])
    for (const command of ['verify', 'audit', 'lost']) {
      const changed = await withRecording(command, native.file, recording, keyring);
      expect(changed.code, `${command} ${recording}`).not.toBe(0);
      expect(changed.text, command).toContain('cut, emptied or changed');
    }
  // Same receipts except `via` and what derives from the line bytes, the recording's random id,
  // the wall clock (`observedAt`) or the arrival order of concurrent exchanges (`entries`: a
  // control answer and the stream events it triggers travel on two connections).
  const stable = (r: ReceiptLine) => {
    const {
      via: _via,
      sig: _sig,
      prev: _prev,
      suspension: _s,
      span: _span,
      links: _links,
      observedAt: _o,
      entries: _e,
      ...rest
    } = r;
    return rest;
  };
  expect(legacy.receipts.map(stable)).toEqual(native.receipts.map(stable));
  expect(legacy.receipts.filter((r) => r.type === 'SuspensionReceipt').map((r) => r.via)).toEqual([
    'legacy-metadata',
    'legacy-metadata',
    'legacy-metadata',
  ]);
});
