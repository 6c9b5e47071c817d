/**
 * Two recorder replicas in front of one reference peer (recorders started with `startRecorder` and
 * the peer with `startPeer` in this process, over real sockets; what `verify`, `lost`, `audit` and
 * `run --merge` conclude of their logs is the library calls the commands make, with one built CLI
 * process per command's printing and its usage errors): a client pauses a task through replica A
 * and resumes it through replica B, over JSON-RPC, over HTTP+JSON, and over gRPC through A and
 * JSON-RPC through B. B writes the
 * ResumptionReceipt of a pause that began outside its log (docs/design.md §17), naming it by the
 * pause identity A's SuspensionReceipt carries, and B's log verifies alone, saying so. `run --merge`
 * replays both as one session; an ask through A answered through B is continued in the merged
 * replay alone, neither replica having seen both (docs/design.md §8, "Merged sessions"). Each fleet
 * is recorded once and read by every test of its binding.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, type ClientBinding } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { printable } from '../../src/public/core.js';
import { tokenHashOf } from '../../src/recording/resume-token.js';
import { startPeer } from '../../src/public/peer.js';
import { Keyring, type ReceiptKey, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { type RunSummary, renderJson, renderRecordingText, replayRecordings } from '../../src/public/replay.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

let root = '';
/** What a test started, closed after the file even when an assertion stopped it early. */
const running: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fleet-'));
});

afterAll(async () => {
  for (const r of running.splice(0).reverse()) await r.close().catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

/** A directory of its own under the file's, for one fleet. */
async function fleetDir(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  return dir;
}

async function peerForFleet() {
  const peer = await startPeer({ deterministic: true });
  running.push(peer);
  return peer;
}

type Line = Record<string, unknown> & { type: string };
type Json = Record<string, unknown>;

async function linesOf(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

interface Fleet {
  dir: string;
  a: { recording: string; receipts: string; key: string; signer: ReceiptKey };
  b: { recording: string; receipts: string; key: string; signer: ReceiptKey };
  /** `pausedAt` of the resumed task's pause as the peer states it over JSON-RPC. */
  resumed: { taskId: string; token: string; pausedAt: string };
  lost: { taskId: string };
}

/**
 * Pauses two tasks through A, resumes one of them through B (A's client over `binding`, B's over
 * `bindingB`), stops both recorders.
 */
/** A replica named `name` in front of the peer at `upstream`, signing with a key file of its own. */
async function replica(dir: string, upstream: string, name: string) {
  const key = join(dir, `${name}.key.json`);
  const signer = generateReceiptKey({ kid: `replica-${name}` });
  await writeFile(key, canonicalJson(signer.keyFile()), { mode: 0o600 });
  const recording = join(dir, `${name}.jsonl`);
  const recorder = await startRecorder({ upstream, out: recording, key });
  running.push(recorder);
  return { recorder, files: { recording, receipts: recording.replace(/\.jsonl$/, '.receipts.jsonl'), key, signer } };
}

/** What `run [--merge] RECORDINGS [--json]` concludes: its summary, and its JSON and text as it prints them. */
async function replayed(recordings: string[], merge: boolean) {
  const summary: RunSummary = await replayRecordings(recordings, { merge, concurrency: 1 });
  const text = [...summary.results.map((r) => renderRecordingText(r, { color: false }))].join('\n');
  return { code: summary.exitCode, json: JSON.parse(renderJson(summary)) as Json, text };
}

/** Closes a replica, expecting every line in its files and its receipt log closed (`record` exits 0). */
async function closeReplica(r: Awaited<ReturnType<typeof replica>>): Promise<void> {
  const summary = await r.recorder.close();
  expect(summary.complete).toBe(true);
  expect(summary.droppedLines).toBe(0);
}

const fleets = new Map<string, Promise<Fleet>>();

/** The fleet of `binding` (and `bindingB`), recorded once for every test that reads it. */
function fleetOf(binding: ClientBinding, bindingB: ClientBinding = binding): Promise<Fleet> {
  const name = `${binding}-${bindingB}`;
  let fleet = fleets.get(name);
  if (fleet === undefined) {
    fleet = fleetDir(name.replace(/\W+/g, '-')).then((dir) => pauseViaAResumeViaB(dir, binding, bindingB));
    fleets.set(name, fleet);
  }
  return fleet;
}

async function pauseViaAResumeViaB(
  dir: string,
  binding: ClientBinding,
  bindingB: ClientBinding = binding,
): Promise<Fleet> {
  const peer = await peerForFleet();
  const a = await replica(dir, peer.url, 'a');
  const b = await replica(dir, peer.url, 'b');
  const viaA = new A2aTestClient(a.recorder.url, 'alice', binding);
  const viaB = new A2aTestClient(b.recorder.url, 'bob', bindingB);
  const direct = new A2aTestClient(peer.url, 'carol');
  const start = async (messageId: string) => {
    const { task } = await viaA.ok<{ task: { id: string } }>('SendMessage', {
      message: { role: 'ROLE_USER', messageId, parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    return task.id;
  };
  const resumedTask = await start('fleet-m1');
  const lostTask = await start('fleet-m2');
  const pause = await viaA.ok<{ pause: { resumeToken: string } }>('PauseTask', {
    taskId: resumedTask,
    reason: 'review',
  });
  await viaA.ok('PauseTask', { taskId: lostTask, reason: 'forgotten' });
  const seen = await direct.ok<{ status: { pause: { pausedAt: string } } }>('GetTask', { id: resumedTask });
  await viaB.ok('ResumeTask', { taskId: resumedTask, resumeToken: pause.pause.resumeToken });
  viaA.close();
  viaB.close();
  await closeReplica(a);
  await closeReplica(b);
  await peer.close();
  return {
    dir,
    a: a.files,
    b: b.files,
    resumed: { taskId: resumedTask, token: pause.pause.resumeToken, pausedAt: seen.status.pause.pausedAt },
    lost: { taskId: lostTask },
  };
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a pause through replica A resumed through B (%s)', (binding) => {
  it('B writes the ResumptionReceipt naming the pause outside its log, and B verifies alone', async () => {
    const fleet = await fleetOf(binding);
    const tokenHash = tokenHashOf(fleet.resumed.token);

    const aLines = await linesOf(fleet.a.receipts);
    const suspensions = aLines.filter((l) => l.type === 'SuspensionReceipt');
    expect(suspensions.map((s) => s.taskId)).toEqual([fleet.resumed.taskId, fleet.lost.taskId]);
    expect(suspensions[0]).toMatchObject({ resumeTokenHash: tokenHash, principal: 'jwt:sub=alice' });
    expect(aLines.filter((l) => l.type === 'ResumptionReceipt')).toEqual([]);

    const bLines = await linesOf(fleet.b.receipts);
    expect(bLines[0]).toMatchObject({ type: 'ReceiptLog', version: 5 });
    const receipts = bLines.filter((l) => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt');
    expect(receipts).toEqual([
      expect.objectContaining({
        type: 'ResumptionReceipt',
        taskId: fleet.resumed.taskId,
        suspension: null,
        outside: { pausedAt: null, resumeTokenHash: tokenHash },
        cause: 'explicit_resume',
        outcome: 'resumed',
        principal: 'jwt:sub=bob',
        binding,
      }),
    ]);

    const verified = await verifyVerdict([fleet.b.receipts], new Keyring([fleet.b.signer]));
    const stdout = verified.lines.join('\n');
    expect(verified.code).toBe(0);
    expect(stdout).toContain(`1 resumption of suspensions outside this log: task ${fleet.resumed.taskId}`);
    expect(stdout).toContain(`task ${fleet.resumed.taskId} resumed, pause token ${tokenHash}`);
    // Worker threads examine the lines, the main one checks them in order: the same verdict. The
    // workers are the built package's, so this one is the command: it prints that verdict.
    const threaded = await runCli(['verify', fleet.b.receipts, '--key', fleet.b.key, '--jobs', '2']);
    expect(threaded.stderr).toBe('');
    expect(threaded.code).toBe(0);
    expect(threaded.stdout).toBe(`${stdout}\n`);
  });

  it('verify, lost, audit and a directory read the replicas as one fleet', async () => {
    const fleet = await fleetOf(binding);
    const keys = ['--key', fleet.a.key, '--key', fleet.b.key];
    const keyring = new Keyring([fleet.a.signer, fleet.b.signer]);

    const verified = await verifyVerdict([fleet.a.receipts, fleet.b.receipts], keyring);
    expect(verified.code).toBe(0);
    expect(verified.lines).toContain(
      'fleet of 2 logs: 1 paused in one log and resumed in another, 1 open when every log ended, 0 orphan resumptions',
    );
    expect(verified.lines.join('\n')).toContain(
      `task ${fleet.resumed.taskId}: paused by jwt:sub=alice in ${fleet.a.receipts}:2 (seq 1), ` +
        `resumed (explicit_resume) by jwt:sub=bob in ${fleet.b.receipts}:2 (seq 1)`,
    );

    // One key per replica, matched by kid: without B's, B's file is named.
    const missing = await verifyVerdict([fleet.a.receipts, fleet.b.receipts], new Keyring([fleet.a.signer]));
    expect(missing.code).toBe(1);
    expect(missing.lines.join('\n')).toContain(`${fleet.b.receipts}: INVALID at line 2: unknown_kid`);

    // A's log alone says the resumed pause is lost; with B's it is not, and only the forgotten one is.
    const alone = await lostVerdict([fleet.a.receipts]);
    expect((alone.json as { lost: unknown[] }).lost).toHaveLength(2);
    const lost = await lostVerdict([fleet.a.recording, fleet.b.recording], { keys: keyring });
    expect(lost.code).toBe(1);
    const listing = lost.json as { lost: unknown[]; orphans: unknown[] };
    expect(listing.orphans).toEqual([]);
    expect(listing.lost).toEqual([
      expect.objectContaining({
        taskId: fleet.lost.taskId,
        reason: 'recording_ended',
        begun: { file: fleet.a.receipts, line: 3, seq: 2 },
        ended: null,
      }),
    ]);

    const audit = await auditVerdict([fleet.a.receipts, fleet.b.receipts], keyring);
    expect(audit.code).toBe(0);
    expect(audit.rows).toEqual([
      expect.objectContaining({
        taskId: fleet.resumed.taskId,
        principal: 'jwt:sub=alice',
        outcome: 'resumed',
        cause: 'explicit_resume',
        closedBy: 'jwt:sub=bob',
        pausedIn: { file: fleet.a.receipts, line: 2 },
        endedIn: { file: fleet.b.receipts, line: 2 },
      }),
      expect.objectContaining({
        taskId: fleet.lost.taskId,
        principal: 'jwt:sub=alice',
        outcome: 'open',
        pausedIn: { file: fleet.a.receipts, line: 3 },
        endedIn: null,
      }),
    ]);
    expect(audit.notes.join('\n')).toContain('2 suspensions in a fleet of 2 logs');
    if (binding === 'JSONRPC') {
      // The command prints the fleet's table, then the library's notes (one binding is enough to show it).
      const table = await runCli(['audit', fleet.a.receipts, fleet.b.receipts, ...keys]);
      expect(table.stdout).toMatch(/PAUSED IN +ENDED IN/);
      expect(table.stderr).toBe(`${printable(audit.notes.join('\n'))}\n`);
    }

    // B's log without A's: its resumption pairs with nothing given, an orphan.
    const onlyB = join(fleet.dir, 'only-b');
    await mkdir(onlyB);
    await writeFile(join(onlyB, 'b.receipts.jsonl'), await readFile(fleet.b.receipts));
    const orphan = await verifyVerdict([onlyB], new Keyring([fleet.b.signer]));
    expect(orphan.code).toBe(1);
    expect(orphan.lines.join('\n')).toContain(
      '0 paused in one log and resumed in another, 0 open when every log ended, 1 orphan',
    );
    expect(orphan.lines.join('\n')).toMatch(
      new RegExp(`ORPHAN: task ${fleet.resumed.taskId}: resumed in .*b\\.receipts\\.jsonl:2`),
    );
    const orphanLost = await lostVerdict([onlyB]);
    expect(orphanLost.code).toBe(1);
    expect(orphanLost.json).toMatchObject({
      lost: [],
      orphans: [{ taskId: fleet.resumed.taskId, reason: 'orphan', resumeTokenHash: tokenHashOf(fleet.resumed.token) }],
    });
  });
});

describe('a pause seen over gRPC through A, resumed over JSON-RPC through B', () => {
  it("A's receipt states pausedAt as the JSON-RPC peer does, and the fleet pairs the two logs", async () => {
    const fleet = await fleetOf('GRPC', 'JSONRPC');
    const keyring = new Keyring([fleet.a.signer, fleet.b.signer]);
    const tokenHash = tokenHashOf(fleet.resumed.token);

    // ProtoJSON wrote the instant without its zero fraction; A keeps the one canonical text.
    const [suspension] = (await linesOf(fleet.a.receipts)).filter((l) => l.type === 'SuspensionReceipt');
    expect(fleet.resumed.pausedAt).toMatch(/\.\d{3}Z$/);
    expect(suspension).toMatchObject({
      taskId: fleet.resumed.taskId,
      binding: 'GRPC',
      pausedAt: fleet.resumed.pausedAt,
      resumeTokenHash: tokenHash,
    });
    const [resumption] = (await linesOf(fleet.b.receipts)).filter((l) => l.type === 'ResumptionReceipt');
    expect(resumption).toMatchObject({ binding: 'JSONRPC', outside: { pausedAt: null, resumeTokenHash: tokenHash } });

    const verified = await verifyVerdict([fleet.a.receipts, fleet.b.receipts], keyring);
    expect(verified.code).toBe(0);
    expect(verified.lines).toContain(
      'fleet of 2 logs: 1 paused in one log and resumed in another, 1 open when every log ended, 0 orphan resumptions',
    );
    expect(verified.lines.join('\n')).not.toContain('ORPHAN');

    const lost = await lostVerdict([fleet.a.receipts, fleet.b.receipts], { keys: keyring });
    const listing = lost.json as { lost: Array<{ taskId: string }>; orphans: unknown[] };
    expect(listing.orphans).toEqual([]);
    expect(listing.lost.map((p) => p.taskId)).toEqual([fleet.lost.taskId]);

    const audit = await auditVerdict([fleet.a.receipts, fleet.b.receipts], keyring);
    expect(audit.code).toBe(0);
    expect(audit.rows).toContainEqual(
      expect.objectContaining({
        taskId: fleet.resumed.taskId,
        outcome: 'resumed',
        closedBy: 'jwt:sub=bob',
        pausedIn: { file: fleet.a.receipts, line: 2 },
        endedIn: { file: fleet.b.receipts, line: 2 },
      }),
    );
  });
});

describe('run --merge replays the replicas as one session', () => {
  it('passes against the embedded peer; drifts naming B’s file when B’s resume names another principal', async () => {
    const fleet = await fleetOf('JSONRPC');

    // What `run --merge A B --json` prints and exits with, as the library the command calls says it.
    const merged = await replayed([fleet.a.recording, fleet.b.recording], true);
    expect(merged.code, merged.text).toBe(0);
    const [result] = (merged.json as { results: { outcome: string; receipts: unknown }[] }).results;
    expect(result).toMatchObject({ outcome: 'match', receipts: { expectedReceipts: 3, actualReceipts: 3 } });

    // Each recording alone pairs nothing across: B's replay alone resumes a pause its peer never saw.
    const alone = await replayed([fleet.b.recording], false);
    expect(alone.code).toBe(1);

    // B's golden log edited (in a copy: other tests read this fleet) to name another principal for
    // the resume: the drift names B's file and line.
    const edited = join(fleet.dir, 'edited');
    await mkdir(edited);
    const editedB = { recording: join(edited, 'b.jsonl'), receipts: join(edited, 'b.receipts.jsonl') };
    await copyFile(fleet.b.recording, editedB.recording);
    const text = await readFile(fleet.b.receipts, 'utf8');
    expect(text).toContain('"principal":"jwt:sub=bob"');
    await writeFile(editedB.receipts, text.replace('"principal":"jwt:sub=bob"', '"principal":"jwt:sub=mallory"'));
    // The command: its text report of the drift, and its exit code.
    const drift = await runCli(['run', '--merge', fleet.a.recording, editedB.recording]);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain(`${editedB.receipts}:2`);
    expect(drift.stdout).toMatch(/principal: expected "jwt:sub=mallory", actual "jwt:sub=bob"/);

    // Options about one recording each are usage errors with --merge.
    for (const extra of [['--update'], ['--shard', '1/2']]) {
      const refused = await runCli(['run', '--merge', fleet.a.recording, fleet.b.recording, ...extra]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${extra[0]} cannot be used with --merge`);
    }
  });

  it('an ask through A answered through B: the merged replay continues it, no replica receipted that', async () => {
    const dir = await fleetDir('ask');
    const peer = await peerForFleet();
    const a = await replica(dir, peer.url, 'a');
    const b = await replica(dir, peer.url, 'b');
    const viaA = new A2aTestClient(a.recorder.url, 'alice');
    const viaB = new A2aTestClient(b.recorder.url, 'bob');
    type Task = { id: string; contextId: string; status: { state: string } };
    const { task: asked } = await viaA.ok<{ task: Task }>('SendMessage', {
      message: { role: 'ROLE_USER', messageId: 'fleet-ask', parts: [{ text: 'ask:approve?' }] },
    });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { task: answered } = await viaB.ok<{ task: Task }>('SendMessage', {
      message: {
        role: 'ROLE_USER',
        messageId: 'fleet-yes',
        parts: [{ text: 'yes' }],
        taskId: asked.id,
        contextId: asked.contextId,
      },
    });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    viaA.close();
    viaB.close();
    await closeReplica(a);
    await closeReplica(b);
    await peer.close();

    // A saw the ask and nothing after it; B saw an answer to a task it never saw interrupted.
    const receipts = async (file: string) =>
      (await linesOf(file)).filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint').map((l) => l.type);
    expect(await receipts(a.files.receipts)).toEqual(['InterruptionReceipt']);
    expect(await receipts(b.files.receipts)).toEqual([]);

    const merged = await replayed([a.files.recording, b.files.recording], true);
    expect(merged.code, merged.text).toBe(1);
    const [result] = (merged.json as { results: { outcome: string; receipts: Json }[] }).results;
    expect(result?.outcome).toBe('drift');
    expect(result?.receipts).toMatchObject({ expectedReceipts: 1, actualReceipts: 2 });
    // The interruption pairs with A's; the continuation is the derived log's alone.
    expect((result?.receipts as { differences: Json[] }).differences).toMatchObject([
      {
        path: `receipts[1] (task ${asked.id} interruption 1 continuation 1)`,
        actual: { type: 'ContinuationReceipt', taskId: asked.id, cause: 'message' },
      },
    ]);
  });
});
