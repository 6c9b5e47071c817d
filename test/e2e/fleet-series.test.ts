/**
 * A fleet of series (docs/design.md §17): two recorder replicas in front of one reference peer
 * (the library's recorder and peer in this process, real sockets), each restarted once with
 * `continueFrom`, so four logs: A's a, a.2 and B's b, b.2. A pause begun through A's first recorder
 * is resumed through B's second; another begun through B's first is resumed through B's second
 * (inside B's series). `verify`, `lost`, `audit`, `report` and `diff` read the four logs as one
 * record: their verdicts as the library calls the commands make (test/helpers/verdicts.ts), and one
 * process of each command to show it prints and exits with what the library said.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { printable } from '../../src/public/core.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { describeDifference } from '../../src/public/replay.js';
import { pausesOf, reportSections, writeHtmlReport } from '../../src/public/report.js';
import {
  Keyring,
  diffFleets,
  diffReceiptLogs,
  fleetLostLines,
  generateReceiptKey,
  readReceiptLogLines,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, lostRefusal, lostVerdict, openRefusal, verifyVerdict } from '../helpers/verdicts.js';

let dir = '';
let peer: RunningPeer;
const replicaKeys = { a: generateReceiptKey({ kid: 'replica-a' }), b: generateReceiptKey({ kid: 'replica-b' }) };
const keyring = new Keyring([replicaKeys.a, replicaKeys.b]);
/** The key files, for the commands run as processes. */
const keys = { a: '', b: '' };
/** The four receipt logs: A's two, B's two. */
const logs = { a1: '', a2: '', b1: '', b2: '' };
const tasks = { across: '', inside: '' };

const receiptsOf = (recording: string): string => recording.replace(/\.jsonl$/, '.receipts.jsonl');

function record(name: 'a' | 'b', out: string, from?: string) {
  return startRecorder({
    upstream: peer.url,
    out,
    key: replicaKeys[name],
    fsync: 'always',
    continueFrom: from,
    env: {},
  });
}

/** Closes a recorder: every line written and the log closed with its checkpoint, as `record` exiting 0 says. */
async function stop(recorder: Awaited<ReturnType<typeof record>>): Promise<boolean> {
  return (await recorder.close()).complete;
}

async function pause(client: A2aTestClient, messageId: string, reason: string) {
  const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
    message: { role: 'ROLE_USER', messageId, parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id, reason });
  return { taskId: task.id, resumeToken: paused.pause.resumeToken };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-series-'));
  for (const name of ['a', 'b'] as const) {
    keys[name] = join(dir, `${name}.key.json`);
    await writeFile(keys[name], canonicalJson(replicaKeys[name].keyFile()), { mode: 0o600 });
  }
  peer = await startPeer({ deterministic: true });
  const at = join(dir, 'fleet');
  await mkdir(at);
  const files = {
    a1: join(at, 'a.jsonl'),
    a2: join(at, 'a.2.jsonl'),
    b1: join(at, 'b.jsonl'),
    b2: join(at, 'b.2.jsonl'),
  };
  const a1 = await record('a', files.a1);
  const b1 = await record('b', files.b1);
  const across = await pause(new A2aTestClient(a1.url, 'alice', 'JSONRPC'), 'fs-m1', 'across');
  const inside = await pause(new A2aTestClient(b1.url, 'carol', 'JSONRPC'), 'fs-m2', 'inside');
  expect(await stop(a1)).toBe(true);
  expect(await stop(b1)).toBe(true);
  const a2 = await record('a', files.a2, files.a1);
  const b2 = await record('b', files.b2, files.b1);
  const viaB2 = new A2aTestClient(b2.url, 'bob', 'JSONRPC');
  await viaB2.ok('ResumeTask', across);
  await viaB2.ok('ResumeTask', inside);
  expect(await stop(a2)).toBe(true);
  expect(await stop(b2)).toBe(true);
  for (const name of ['a1', 'a2', 'b1', 'b2'] as const) logs[name] = receiptsOf(files[name]);
  tasks.across = across.taskId;
  tasks.inside = inside.taskId;
}, 60_000);

afterAll(async () => {
  await peer?.close();
  await rm(dir, { recursive: true, force: true });
});

const keyArgs = (): string[] => ['--key', keys.a, '--key', keys.b];
const all = (): string[] => [logs.a1, logs.a2, logs.b1, logs.b2];

/**
 * What `report FILES --key A --key B --out OUT` writes and counts in its `wrote OUT: N files, P
 * pauses, L lost` line, as the library calls the command makes.
 */
async function reported(files: string[], out: string): Promise<{ pauses: number; lost: number }> {
  const sections = await reportSections(files, { keyring });
  await writeHtmlReport(out, sections, 'a2a-replay report');
  let pauses = 0;
  let lost = 0;
  for (const section of sections) {
    pauses += pausesOf(section);
    lost += section.rows.filter((r) => r.outcome === 'lost').length;
  }
  return { pauses, lost };
}

/** The line of `file` holding the receipt of `type` for `taskId`. */
async function lineOf(file: string, type: string, taskId: string): Promise<number> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const i = lines.findIndex((l) => l.includes(`"type":"${type}"`) && l.includes(`"taskId":"${taskId}"`));
  expect(i).toBeGreaterThan(0);
  return i + 1;
}

describe('two replicas, each restarted once with --continue-from', () => {
  it('verify passes with a key per replica, naming the pause begun in A’s first log, ended in B’s second', async () => {
    const verified = await runCli(['verify', ...all(), ...keyArgs()]);
    expect(verified.stderr).toBe('');
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/series .*: ok: 2 logs, each linked to the one before it; 1 pause open at its end/);
    expect(verified.stdout).toContain(
      'fleet of 4 logs: 1 paused in one log and resumed in another, 0 open when every log ended, ' +
        '0 orphan resumptions',
    );
    const begun = await lineOf(logs.a1, 'SuspensionReceipt', tasks.across);
    const ended = await lineOf(logs.b2, 'ResumptionReceipt', tasks.across);
    expect(verified.stdout).toContain(
      `task ${tasks.across}: paused by jwt:sub=alice in ${logs.a1}:${begun} (seq 1), ` +
        `resumed (explicit_resume) by jwt:sub=bob in ${logs.b2}:${ended}`,
    );
    // What the command printed is the library's verdict, line for line.
    const library = await verifyVerdict(all(), keyring);
    expect(library.code).toBe(0);
    expect(`${library.lines.join('\n')}\n`).toBe(verified.stdout);
    // The directory holding the four logs is the same fleet, given in any order.
    const directory = await verifyVerdict([join(dir, 'fleet')], keyring);
    expect(directory.code, directory.lines.join('\n')).toBe(0);
    const shuffled = await verifyVerdict([logs.b2, logs.a2, logs.b1, logs.a1], keyring);
    expect(shuffled.code).toBe(0);
    const json = shuffled.json as unknown as { series: { ok: boolean }[]; fleet: { paired: unknown[] } };
    expect(json.series.map((s) => s.ok)).toEqual([true, true]);
    expect(json.fleet.paired).toEqual([
      expect.objectContaining({
        taskId: tasks.across,
        begun: { file: logs.a1, line: begun, seq: 1 },
        ended: expect.objectContaining({ file: logs.b2, line: ended, outcome: 'resumed' }) as unknown,
      }),
    ]);
  });

  it('lost finds nothing lost, with or without keys; without B’s second log both pauses are lost', async () => {
    const lost = await runCli(['lost', ...all(), ...keyArgs()]);
    expect(lost.stderr).toBe('');
    expect(lost.stdout).toContain('no lost pauses in a fleet of 4 logs');
    expect(lost.code).toBe(0);
    for (const keys of [keyring, undefined]) {
      const found = await lostVerdict(all(), { keys });
      expect(found.found.files).toHaveLength(4);
      expect(found.found.fleet?.lost).toEqual([]);
      expect(fleetLostLines(found.found)).toEqual([]);
      expect(found.code).toBe(0);
    }
    const without = await lostVerdict([logs.a1, logs.a2, logs.b1], { keys: keyring });
    expect(without.code).toBe(1);
    const listing = without.json as unknown as { lost: { taskId: string; begun: { file: string } }[] };
    expect(listing.lost.map((l) => [l.taskId, l.begun.file])).toEqual([
      [tasks.across, logs.a1],
      [tasks.inside, logs.b1],
    ]);
  });

  it('audit shows one row per pause, each with the log that saw it begin and the log that saw it end', async () => {
    const audit = await auditVerdict(all(), keyring);
    expect(audit.code, audit.why ?? '').toBe(0);
    const rows = audit.rows;
    expect(rows.filter((r) => r.taskId === tasks.across)).toEqual([
      expect.objectContaining({
        principal: 'jwt:sub=alice',
        outcome: 'resumed',
        cause: 'explicit_resume',
        closedBy: 'jwt:sub=bob',
        pausedIn: { file: logs.a1, line: await lineOf(logs.a1, 'SuspensionReceipt', tasks.across) },
        endedIn: { file: logs.b2, line: await lineOf(logs.b2, 'ResumptionReceipt', tasks.across) },
      }),
    ]);
    expect(rows.filter((r) => r.taskId === tasks.inside)).toEqual([
      expect.objectContaining({
        outcome: 'resumed',
        pausedIn: { file: logs.b1, line: await lineOf(logs.b1, 'SuspensionReceipt', tasks.inside) },
        endedIn: { file: logs.b2, line: await lineOf(logs.b2, 'ResumptionReceipt', tasks.inside) },
      }),
    ]);
    const table = await runCli(['audit', ...all(), ...keyArgs()]);
    expect(table.stdout).toMatch(/PAUSED IN +ENDED IN/);
    expect(table.stderr).toContain('2 suspensions in a fleet of 4 logs');
    expect(table.stderr).toBe(`${printable(audit.notes.join('\n'))}\n`);
  });

  it('names a gap inside one series, and two logs holding one position of a series', async () => {
    const gap = join(dir, 'gap');
    await mkdir(gap);
    // A's series given its second log without its first: B's series is whole.
    const gapped = await verifyVerdict([logs.a2, logs.b1, logs.b2], keyring);
    expect(gapped.lines.join('\n')).toMatch(/its first log is missing/);
    expect(gapped.code).toBe(1);
    // A copy of A's second log beside it: two logs at position 2 of A's series.
    const twice = join(dir, 'twice');
    await mkdir(twice);
    for (const file of all()) await copyFile(file, join(twice, file.slice(file.lastIndexOf('/') + 1)));
    await copyFile(logs.a2, join(twice, 'a-copy.receipts.jsonl'));
    const verified = await verifyVerdict([twice], keyring);
    expect(verified.lines.join('\n')).toMatch(/both hold position 2 of series/);
    expect(verified.code).not.toBe(0);
    const lost = await lostRefusal([twice], { keys: keyring });
    expect(lost.error).toMatch(/both hold position 2 of series/);
    expect(lost.code).not.toBe(0);
    const audited = await auditVerdict([twice], keyring);
    expect(audited.why).toMatch(/both hold position 2 of series/);
    expect(audited.code).not.toBe(0);
    const unverified = await lostRefusal([twice]);
    expect(unverified.error).toMatch(/a-copy\.receipts\.jsonl and .*a\.2\.receipts\.jsonl both hold position 2/);
    expect(unverified.code).toBe(2);
  });

  it('gives the same exit code in verify, lost and audit for an orphan resumption', async () => {
    // B's series and a replica that saw nothing: the resumption of the pause begun in A's first log
    // pairs with no pause given.
    const quiet = join(dir, 'quiet.jsonl');
    expect(await stop(await record('a', quiet))).toBe(true);
    const given = [logs.b1, logs.b2, receiptsOf(quiet)];
    const verified = await verifyVerdict(given, keyring);
    expect(verified.lines.join('\n')).toMatch(/orphan/i);
    const lost = await lostVerdict(given, { keys: keyring });
    expect(fleetLostLines(lost.found).join('\n')).toMatch(/orphan/i);
    const audited = await auditVerdict(given, keyring);
    expect(`${audited.why ?? ''} ${audited.notes.join('\n')}`).toMatch(/orphan/i);
    expect({ verify: verified.code, lost: lost.code, audit: audited.code }).toEqual({ verify: 1, lost: 1, audit: 1 });
  });

  it('tells a middle log cut short or written to after its successor began, keyed or not: exit 1', async () => {
    const text = await readFile(logs.a1, 'utf8');
    const cases = {
      cut: text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1),
      appended: text + text.split('\n').at(-2)! + '\n',
    };
    for (const [name, changed] of Object.entries(cases)) {
      const at = join(dir, `series-${name}`);
      await mkdir(at);
      for (const file of all()) await copyFile(file, join(at, file.slice(file.lastIndexOf('/') + 1)));
      await writeFile(join(at, 'a.receipts.jsonl'), changed);
      // The same facts, the same exit code in every command: an invalid log is 1.
      const verified = await verifyVerdict([at], keyring);
      expect(verified.code, name).toBe(1);
      const keyed = await lostRefusal([at], { keys: keyring });
      expect(keyed.error).toMatch(/the series does not verify/);
      expect(keyed.code, `${name}: lost --key`).toBe(1);
      const audited = await auditVerdict([at], keyring);
      expect(audited.code, `${name}: audit --key: ${audited.why}`).toBe(1);
      // Without a key: the fleet, and A's series alone.
      for (const args of [[at], [join(at, 'a.receipts.jsonl'), join(at, 'a.2.receipts.jsonl')]]) {
        const lost = await lostRefusal(args);
        expect(lost.error, `${name}: lost ${args.join(' ')}`).toMatch(
          /the series does not hold together: .*lines were appended to it or cut from it after its successor began/,
        );
        expect(lost.code, `${name}: lost ${args.join(' ')}`).toBe(1);
      }
    }
  });

  it('refuses a file that is neither a receipt log nor a recording with one beside it, naming it', async () => {
    const stray = join(dir, 'notes.txt');
    await writeFile(stray, 'not a log\n');
    // verify, lost and audit open what they are given with the same call, first.
    const refused = await openRefusal([...all(), stray]);
    expect(refused.error).toContain(`${stray}: not a receipt log, and no receipt log beside it`);
    expect(refused.code).toBe(2);
    const lost = await runCli(['lost', ...all(), stray, ...keyArgs()]);
    expect(lost.stderr).toBe(`a2a-replay: ${refused.error}\n`);
    expect(lost.code).toBe(2);
  });

  it('report --fleet shows one row per pause, with the logs that saw it begin and end', async () => {
    const begun = await lineOf(logs.a1, 'SuspensionReceipt', tasks.across);
    const ended = await lineOf(logs.b2, 'ResumptionReceipt', tasks.across);
    const out = join(dir, 'fleet.html');
    const report = await runCli(['report', '--fleet', ...all(), ...keyArgs(), '--out', out]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^wrote .*fleet\.html: 4 files, 2 pauses, 0 lost\n$/);
    const html = await readFile(out, 'utf8');
    expect(html).toContain('<th>paused in</th><th>ended in</th>');
    expect(html).toContain('No lost pauses.');
    const row = html.split('<tr').find((r) => r.includes(`data-task="${tasks.across}"`) && r.includes('<td'));
    expect(row).toContain('resumed (explicit_resume)');
    expect(row).toContain(`>${logs.a1}:${begun}<`);
    expect(row).toContain(`>${logs.b2}:${ended}<`);
    expect(row).toContain('verified (signature and chain)');
    expect(html).toMatch(/series [^<]*: ok: 2 logs, each linked to the one before it/);
    // The directory holding them is the same fleet.
    const directory = await reported([join(dir, 'fleet')], join(dir, 'dir.html'));
    expect(directory).toEqual({ pauses: 2, lost: 0 });
    // One file is the report of that file, as ever: A's first log alone has its pause lost.
    const one = await reported([logs.a1], join(dir, 'one.html'));
    expect(one).toEqual({ pauses: 1, lost: 1 });
    expect(await readFile(join(dir, 'one.html'), 'utf8')).not.toContain('paused in');
  });

  it('diff pairs the fleets’ receipts by pause identity, naming the file and line of each drift', async () => {
    const same = await runCli(['diff', ...all(), '--', logs.b2, logs.b1, logs.a2, logs.a1]);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toBe('same: 4 receipts in a fleet of 4 logs and one of 4, paired by pause identity\n');
    // Two directories are two fleets.
    const directories = await diffFleets([join(dir, 'fleet')], [join(dir, 'fleet')]);
    expect(directories.diff.differences).toEqual([]);

    const ended = await lineOf(logs.b2, 'ResumptionReceipt', tasks.across);
    const missing = await diffFleets(all(), [logs.a1, logs.a2, logs.b1]);
    expect(missing.expected).toHaveLength(4);
    expect(missing.diff.differences).toHaveLength(2);
    expect(missing.diff.differences.map((d) => describeDifference(d)).join('\n')).toMatch(
      new RegExp(`${logs.b2}:${ended} \\(task ${tasks.across} pause sha256:[0-9a-f]+ resumption 1\\): expected \\{`),
    );
    // The command prints those differences and exits 1.
    const command = await runCli(['diff', ...all(), '--', logs.a1, logs.a2, logs.b1]);
    expect(command.code).toBe(1);
    expect(command.stdout).toContain('2 difference(s) between the fleet of 4 logs');
    for (const d of missing.diff.differences) expect(command.stdout).toContain(`  ${describeDifference(d)}\n`);

    // B's second log edited to name another principal for the resume: both files and lines named.
    const edited = join(dir, 'edited');
    await mkdir(edited);
    for (const file of all()) await copyFile(file, join(edited, file.slice(file.lastIndexOf('/') + 1)));
    const b2 = join(edited, 'b.2.receipts.jsonl');
    await writeFile(b2, (await readFile(b2, 'utf8')).replace('"principal":"jwt:sub=bob"', '"principal":"jwt:sub=eve"'));
    const drift = await diffFleets([join(dir, 'fleet')], [edited]);
    expect(drift.diff.differences.length).toBeGreaterThan(0);
    const described = drift.diff.differences.map((d) => describeDifference(d)).join('\n');
    expect(described).toContain(`${logs.b2}:${ended} vs ${b2}:${ended} (task ${tasks.across} pause `);
    expect(described).toMatch(/resumption 1\)\.principal: expected "jwt:sub=bob", actual "jwt:sub=eve"/);

    // One log against one keeps its meaning (`diff A B` compares them signed, not strict); a side
    // left empty is a usage error.
    const b2Lines = await readReceiptLogLines(logs.b2);
    const one = diffReceiptLogs(b2Lines, b2Lines, { strict: false, signed: true, otherSession: false });
    expect([one.differences, one.expectedReceipts, one.ignored]).toEqual([[], 2, []]);
    const empty = await runCli(['diff', ...all(), '--']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('give at least one log on each side of --');
  });
});
