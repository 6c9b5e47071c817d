/**
 * @module bench/replay-throughput
 * Exchanges per second replayed by the driver, beside the same session sent by a plain client in
 * the same run, both against a fresh deterministic reference peer; and the time to replay a
 * recording of N exchanges (default 10,000) end to end, receipts derived and sealed.
 *
 * The session: T tasks run concurrently (C at a time), each sequentially SendMessage(work:3,
 * returnImmediately) → PauseTask → GetTask ×(K) → ResumeTask → GetTask: 10 exchanges per task
 * with K = 6, so 1,000 tasks make 10,000 exchanges and 2,000 receipts.
 *
 *   npx tsx bench/replay-throughput.ts [--tasks 1000] [--concurrency 16]
 */
import { Agent, request } from 'node:http';
import {
  CounterIdSource,
  ExchangeRecorder,
  MemoryLineSink,
  RecordingWriter,
  type RecordingEntry,
  deriveReceiptLog,
  driveRecording,
  startPeer,
  startRecordingProxy,
  systemClock,
  unsignedKeyring,
} from '../src/internal.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const TASKS = Number(arg('tasks', '1000'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const GETS = 6;

function client(base: string): (method: string, params: unknown) => Promise<Record<string, unknown>> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  let id = 0;
  return (method, params) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
      const req = request(
        base,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              result?: Record<string, unknown>;
              error?: unknown;
            };
            if (reply.error !== undefined) reject(new Error(`${method}: ${JSON.stringify(reply.error)}`));
            else resolve(reply.result ?? {});
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

/** The session, with `CONCURRENCY` tasks in flight; returns exchanges sent. */
async function session(base: string): Promise<number> {
  const rpc = client(base);
  let next = 0;
  let exchanges = 0;
  const one = async (n: number): Promise<void> => {
    const { task } = (await rpc('SendMessage', {
      message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    })) as { task: { id: string } };
    const paused = (await rpc('PauseTask', { taskId: task.id, reason: 'bench', mode: 'finish_step' })) as {
      pause: { resumeToken: string };
    };
    for (let i = 0; i < GETS; i++) await rpc('GetTask', { id: task.id });
    await rpc('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    await rpc('GetTask', { id: task.id });
    exchanges += 4 + GETS;
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TASKS) await one(next++);
    }),
  );
  return exchanges;
}

async function main(): Promise<void> {
  // 1. Record the session through the recording proxy.
  const recordPeer = await startPeer({ deterministic: true, port: 0 });
  const writer = new RecordingWriter({
    sink: new MemoryLineSink(),
    clock: systemClock,
    ids: new CounterIdSource('bench'),
    target: recordPeer.url,
  });
  const entries: RecordingEntry[] = [];
  const recorder = new ExchangeRecorder({
    writer,
    ids: new CounterIdSource(writer.header.id),
    onEntry: (e) => {
      entries.push(e);
    },
  });
  const proxy = await startRecordingProxy({ upstream: recordPeer.url, recorder });
  const recorded = await session(proxy.url);
  await proxy.close();
  await recordPeer.close();

  // 2. Baseline: a plain client sends the same session to a fresh peer.
  const plainPeer = await startPeer({ deterministic: true, port: 0 });
  let t = systemClock.now();
  const plain = await session(plainPeer.url);
  const plainMs = systemClock.now() - t;
  await plainPeer.close();

  // 3. Replay the recording against a fresh peer, then derive and seal the receipts.
  const replayPeer = await startPeer({ deterministic: true, port: 0 });
  t = systemClock.now();
  const drive = await driveRecording(entries, { peerUrl: replayPeer.url, timeoutMs: 30_000 });
  const driveMs = systemClock.now() - t;
  t = systemClock.now();
  const log = await deriveReceiptLog({
    header: writer.header,
    entries: drive.replayed,
    keyring: unsignedKeyring(),
    tool: 'bench',
  });
  const deriveMs = systemClock.now() - t;
  await replayPeer.close();

  const rate = (n: number, ms: number): string => `${Math.round((n / ms) * 1000)}/s`;
  const receipts = log.lines.filter((l) => l.includes('Receipt"')).length;
  process.stdout.write(
    [
      `session: ${TASKS} tasks, ${recorded} exchanges (${entries.length} entries), ${CONCURRENCY} tasks in flight`,
      `plain client:   ${plain} exchanges in ${plainMs} ms  (${rate(plain, plainMs)})`,
      `replay driver:  ${drive.plan.exchanges.length} exchanges in ${driveMs} ms  ` +
        `(${rate(drive.plan.exchanges.length, driveMs)}), drift ${drive.drift.length}`,
      `receipts:       ${receipts} derived and sealed in ${deriveMs} ms`,
      `replay / plain: ${(plainMs / driveMs).toFixed(2)}x the plain client's rate; end to end ` +
        `${driveMs + deriveMs} ms for ${recorded} exchanges`,
    ].join('\n') + '\n',
  );
}

await main();
