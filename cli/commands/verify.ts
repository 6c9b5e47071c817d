/**
 * @module cli/commands/verify
 * `a2a-replay verify LOG [--key FILE]... [--public-key FILE]... [--checkpoint FILE] [--recording FILE]
 * [--allow-torn-tail] [--allow-open] [--jobs N] [--json]`: streams a receipt log in constant memory
 * (and with `--recording`, the recording beside it: the log's own, every answer read whole,
 * docs/design.md §5); with `--jobs N`
 * (default: the cores available, one thread for a log under 4 MiB) N threads (N - 1 workers and
 * the main one) check signatures and canonical forms while the chain is checked in order
 * (docs/design.md §6). With `--recording FILE` a log of another recording, or a recording cut or
 * changed since the closing checkpoint bound it, fails. Exit 0
 * with a one-line summary when it verifies, 1 naming the first bad line and why (a log that does
 * not end in a checkpoint included, unless --allow-open), 2 on a usage error (no such file, no
 * key, a bad --jobs).
 */
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { printable } from '../../src/printable.js';
import { defaultVerifyJobs } from '../../src/receipts/verify-jobs.js';
import { type VerifyResult, verifyReceiptLog } from '../../src/receipts/verify.js';
import { type Incomplete, gapless, readRecordingGaps } from '../../src/logs/recording-gaps.js';
import { A2aReplayError } from '../../src/errors.js';
import type { Keyring } from '../../src/receipts/keys.js';
import { checkSince, latestNote, scanLogTree } from '../../src/receipts/log-proofs.js';
import { cosignaturesPathFor, parseCosignatureFile } from '../../src/receipts/cosignature-file.js';
import { checkWitnessQuorum } from '../../src/receipts/witness-check.js';
import { witnessKeys } from '../../src/record/witnesses.js';
import { usageFailure } from '../record-flags.js';
import { receiptLogInput } from '../../src/logs/collector-input.js';
import { readFirstLine } from '../../src/logs/first-line.js';
import { noteVerifierOf } from '../../src/receipts/log-tree.js';
import { FleetLedger, fleetFails } from '../../src/receipts/fleet.js';
import { type GivenLogs, fleetLines, fleetPauseJson, manyLogs } from '../../src/logs/given-logs.js';
import { strayLogs, verifyGroupInto } from '../../src/logs/group-series.js';
import { outsideLines, seriesLine, verifySummary } from '../../src/logs/describe-verification.js';
import { seriesFiles } from '../../src/receipts/series.js';
import { openLogSet, verifyLogSet } from '../../src/logs/log-set.js';
import { type HeadPlacement, givenLogHeaders, placeSeriesHead } from '../../src/logs/series-head.js';
import { CliExit, EXIT } from '../io.js';
import type { SeriesResult } from '../../src/receipts/series.js';
import {
  collect,
  type KeyOptions,
  type OpenEndOptions,
  integerOption,
  loadVerifyInputs,
  openEnd,
  withKeyOptions,
  withOpenEndOptions,
} from '../options.js';

/**
 * What `--recording` adds: the recording the log was derived from must be the log's (its header
 * `id` is the log's `recording`), and read whole by the recorder and its observer (docs/design.md
 * §5, §14.2, §14.10): an entry marked `incomplete`, a request in no dialect, or an answer the
 * observer could not read hid from the receipts whatever pause it showed. The gaps are the ones
 * `lost` names (`logs/recording-gaps`), but for a body the recording keeps as its head (`cut`):
 * the recorder read that one whole. Lines to print, and whether the pair is sound.
 */
async function checkRecording(log: string, recording: string): Promise<{ ok: boolean; lines: string[] }> {
  let logRecording: unknown;
  try {
    // The header is line 1, read to its end (a continued log's can be long); never the log whole.
    const first = await readFirstLine(log);
    logRecording = (JSON.parse(first) as { recording?: unknown }).recording;
  } catch {
    logRecording = undefined;
  }
  let read: Awaited<ReturnType<typeof readRecordingGaps>>;
  try {
    read = await readRecordingGaps(recording, { cutCounts: false, allowTornTail: true });
  } catch (error) {
    throw new CliExit(EXIT.usage, (error as Error).message);
  }
  const lines: string[] = [];
  let ok = true;
  if (read.id !== logRecording) {
    ok = false;
    lines.push(
      `${recording}: not the recording of ${log}: its id is ${JSON.stringify(read.id)}, ` +
        `the log names ${JSON.stringify(logRecording ?? null)}`,
    );
  }
  const { incomplete, notUnderstood, unread } = read.gaps;
  const listed = (gap: Incomplete): string[] => [
    ...gap.listed.map((i) => `${recording}:${i.line}: seq ${i.seq}: ${i.why}`),
    ...(gap.count > gap.listed.length ? [`... and ${gap.count - gap.listed.length} more`] : []),
  ];
  if (incomplete.count > 0) {
    const n = incomplete.count;
    lines.push(
      `${recording}: INCOMPLETE: the recorder could not read ${n} entr${n === 1 ? 'y' : 'ies'} in full; ` +
        'a pause or resume they carried has no receipt in the log',
      ...listed(incomplete),
    );
  }
  if (notUnderstood.count > 0) {
    const n = notUnderstood.count;
    lines.push(
      `${recording}: NOT UNDERSTOOD: ${n} request${n === 1 ? ' is' : 's are'} in no A2A dialect this tool reads; ` +
        'what they carried has no receipt in the log',
      ...listed(notUnderstood),
    );
  }
  if (unread.count > 0) {
    const n = unread.count;
    lines.push(
      `${recording}: UNREAD: the observer could not read what the peer said at ${n} entr${n === 1 ? 'y' : 'ies'}; ` +
        'a pause, resume or interruption shown there has no receipt in the log',
      ...listed(unread),
    );
  }
  if (!gapless(read.gaps)) ok = false;
  else if (ok) lines.push(`${recording}: complete: the recorder read every answer whole`);
  return { ok, lines };
}

/** `--since`: whether the log extends the tree of a checkpoint note taken earlier, in one line. */
async function checkSinceNote(
  log: string,
  noteFile: string,
  keyring: Keyring,
): Promise<{ ok: boolean; line: string; oldSize?: number; newSize?: number }> {
  let note: string;
  try {
    note = await readFile(noteFile, 'utf8');
  } catch (error) {
    throw new CliExit(
      EXIT.usage,
      `--since ${noteFile}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const verifiers = keyring.kids.flatMap((kid) => {
    const key = keyring.get(kid)!;
    return key.hasEd25519Public ? [noteVerifierOf(key)] : [];
  });
  if (verifiers.length === 0)
    throw new CliExit(EXIT.usage, '--since: no key given holds an Ed25519 public key to check the note with');
  try {
    const scan = await scanLogTree(log);
    const { oldSize, newSize, origin } = checkSince(scan, note, verifiers);
    return {
      ok: true,
      oldSize,
      newSize,
      line:
        `${log}: extends ${noteFile}: ${origin} grew from ${oldSize} to ${newSize} lines ` +
        '(consistency proof verified)',
    };
  } catch (error) {
    if (!(error instanceof A2aReplayError)) throw error;
    return { ok: false, line: `${log}: INVALID since ${noteFile}: ${error.message}` };
  }
}

interface WitnessOptions {
  witnessVkey: string[];
  witnessQuorum?: string;
  cosignatures?: string;
}

/**
 * `--witness-vkey … --witness-quorum K`: K of the witnesses given cosigned the log's latest note
 * (docs/design.md §6, "Witnesses"), and none reported a fork; one line saying who signed.
 */
async function checkWitnesses(
  log: string,
  options: WitnessOptions,
  read: string = log,
): Promise<{ ok: boolean; line: string; signed?: { witness: string; timestamp: number }[] } | undefined> {
  if (options.witnessVkey.length === 0) {
    if (options.witnessQuorum !== undefined || options.cosignatures !== undefined)
      throw new CliExit(EXIT.usage, '--witness-quorum and --cosignatures need --witness-vkey');
    return undefined;
  }
  const keys = await witnessKeys(options.witnessVkey).catch(usageFailure);
  const quorum =
    options.witnessQuorum === undefined
      ? 1
      : integerOption(options.witnessQuorum, 'witness-quorum', 1, options.witnessVkey.length);
  const file = options.cosignatures ?? cosignaturesPathFor(log);
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || options.cosignatures !== undefined)
      throw new CliExit(EXIT.usage, `--cosignatures ${file}: cannot read (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    const latest = latestNote(await scanLogTree(read));
    const check = checkWitnessQuorum(latest, parseCosignatureFile(text), keys, quorum);
    return {
      ok: check.ok,
      signed: check.signed,
      line:
        `${log}: ${check.ok ? 'witnessed' : 'NOT WITNESSED'}: ${check.message}` + (text === '' ? ` (no ${file})` : ''),
    };
  } catch (error) {
    if (!(error instanceof A2aReplayError)) throw error;
    return { ok: false, line: `${log}: NOT WITNESSED: ${file}: ${error.message}` };
  }
}

/**
 * `verify A B ...` (docs/design.md §17): each recorder's log verified as alone, or its series as a
 * series, the lines fed to one ledger that pairs resumptions of pauses outside their log with the
 * suspensions of the others. Exit 1 when a log or a series fails, or a resumption pairs with
 * nothing given (what a forger would write).
 */
async function verifyFleet(
  given: GivenLogs,
  options: KeyOptions & OpenEndOptions & { json?: boolean; jobs?: string; recording?: string; since?: string },
): Promise<void> {
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  for (const [option, name] of [
    [options.recording, '--recording'],
    [options.since, '--since'],
  ] as const)
    if (option !== undefined) throw new CliExit(EXIT.usage, `${name} applies to one log, not to several`);
  const { files, groups } = given;
  const jobs = options.jobs === undefined ? 1 : integerOption(options.jobs, 'jobs', 1, 256);
  const ledger = new FleetLedger();
  const results: Array<{ file: string; result: VerifyResult }> = [];
  const series: Array<{ result: SeriesResult; stray: string[] }> = [];
  const lines: string[] = [];
  let keyring: Keyring | undefined;
  for (const group of groups) {
    keyring ??= (await loadVerifyInputs(group.files[0]!, options)).keyring;
    if (group.linked) {
      const result = await verifyGroupInto(ledger, group, { keyring, ...openEnd(options) });
      const stray = result.ok ? [] : strayLogs(group, groups);
      series.push({ result, stray });
      for (const m of result.members) {
        results.push({ file: m.path, result: m.result });
        lines.push(verifySummary(m.path, m.result), ...(m.result.ok ? outsideLines(m.path, m.result) : []));
      }
      lines.push(seriesLine(result), ...stray);
      continue;
    }
    const file = group.files[0]!;
    ledger.startLog(file);
    const result = await verifyReceiptLog(file, {
      keyring,
      jobs,
      ...openEnd(options),
      onLine: ({ number, line, hash }) => ledger.add(line, number, hash),
    });
    results.push({ file, result });
    lines.push(verifySummary(file, result), ...(result.ok ? outsideLines(file, result) : []));
  }
  const verdict = ledger.finish();
  const ok = results.every((r) => r.result.ok) && series.every((s) => s.result.ok);
  if (options.json)
    process.stdout.write(
      `${JSON.stringify({
        files: results.map(({ file, result }) => ({ file, ...result })),
        ...(series.length === 0
          ? {}
          : {
              series: series.map(({ result, stray }) => ({
                id: result.id,
                ok: result.ok,
                files: result.members.map((m) => m.path),
                open: result.open,
                ...(result.error === undefined ? {} : { error: result.error, stray }),
              })),
            }),
        fleet: ok
          ? {
              paired: verdict.paired.map(({ pause, end }) => fleetPauseJson(pause, end)),
              open: verdict.lost.map((pause) => fleetPauseJson(pause, null)),
              orphans: verdict.orphans,
              ambiguous: verdict.ambiguous,
            }
          : null,
      })}\n`,
    );
  else {
    if (ok) lines.push(...fleetLines(files.length, verdict));
    process.stdout.write(lines.map((l) => `${printable(l)}\n`).join(''));
  }
  if (!ok || fleetFails(verdict)) throw new CliExit(EXIT.drift, '');
}

/** What the head given with `--checkpoint` says of the logs given, in one line. */
function headLine(head: HeadPlacement): string {
  switch (head.kind) {
    case 'at':
      return `head: ${head.message}`;
    case 'missing':
      return `head: MISSING LOG: ${head.message}`;
    case 'refused':
      return `head: INVALID: ${head.message}`;
    default: {
      const never: never = head;
      throw new Error(`unhandled head placement ${String(never)}`);
    }
  }
}

/** Verifies the series and prints one line per log and one for the series (and its head's, if given). */
async function verifySeriesCommand(
  logs: readonly string[],
  options: KeyOptions & OpenEndOptions & { json?: boolean; jobs?: string; since?: string },
  /** `verify`'s one-line summary of a log. */
  verifySummary: (log: string, result: VerifyResult) => string,
): Promise<void> {
  for (const [flag, given] of [
    ['--recording', options.recording],
    ['--since', options.since],
  ] as const)
    if (given !== undefined) throw new CliExit(EXIT.usage, `${flag} applies to one log, not to a series`);
  let files: string[];
  try {
    files = await seriesFiles(logs);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
  const inputs = await loadVerifyInputs(files[0]!, options);
  // The series' head (`--checkpoint`) is checked against the log it names (docs/design.md §6).
  const set = await openLogSet(files, { keys: inputs.keyring, ...openEnd(options), head: inputs.head });
  const verified = await verifyLogSet(set);
  if (verified.kind !== 'series') throw new CliExit(EXIT.usage, `${logs.join(', ')}: not one series`);
  const { series, head } = verified;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...series, ...(head === undefined ? {} : { head }) })}\n`);
  } else {
    const lines = series.members.map((m) => `${m.position}: ${verifySummary(m.path, m.result)}`);
    lines.push(seriesLine(series));
    if (head !== undefined) lines.push(headLine(head));
    process.stdout.write(`${lines.map((l) => printable(l)).join('\n')}\n`);
  }
  if (!verified.ok) throw new CliExit(EXIT.drift, '');
}

export function registerVerify(program: Command): void {
  withOpenEndOptions(withKeyOptions(program.command('verify')))
    .description(
      'verify signed, hash-chained receipt logs (streams each in constant memory); several logs, or ' +
        'directories of them, are one fleet: resumptions of pauses outside a log are paired across them',
    )
    .argument('<logs...>', 'receipt logs (*.receipts.jsonl), recordings (their logs beside them) or directories')
    .option('--json', 'print the result as JSON')
    .option(
      '--since <note>',
      'a checkpoint note taken earlier (`checkpoint`): the log must extend it (RFC 6962 consistency)',
    )
    .option(
      '--witness-vkey <vkey>',
      "a witness's verifier key (name+hash+key, type 0x04), or a file holding it (repeatable)",
      collect,
      [],
    )
    .option('--witness-quorum <k>', 'cosignatures of the witnesses given the latest checkpoint needs (default 1)')
    .option('--cosignatures <file>', 'the cosignature file (default: X.receipts.cosignatures.jsonl beside the log)')
    .option(
      '--jobs <n>',
      'threads checking signatures and canonical forms (N - 1 workers and the main one; the chain is ' +
        'checked in order; 1: no workers; default: the cores available, 1 for a log under 4 MiB)',
    )
    .action(
      async (
        logs: string[],
        options: KeyOptions &
          OpenEndOptions &
          WitnessOptions & { json?: boolean; jobs?: string; recording?: string; since?: string },
      ) => {
        const many = await manyLogs(logs);
        if (many?.series) return verifySeriesCommand(many.files, options, verifySummary);
        if (many) return verifyFleet(many, options);
        const [log] = logs;
        if (log === undefined) throw new CliExit(EXIT.usage, 'no receipt log given');
        const input = await receiptLogInput(log);
        try {
          await verifyOne(log, input.path, options);
        } finally {
          await input.cleanup();
        }
      },
    );
}

/** Verifies the log read from `read` (the file itself, or one rebuilt from a collector export), named `log`. */
async function verifyOne(
  log: string,
  read: string,
  options: KeyOptions &
    OpenEndOptions &
    WitnessOptions & { json?: boolean; jobs?: string; recording?: string; since?: string },
): Promise<void> {
  const given = options.jobs === undefined ? null : integerOption(options.jobs, 'jobs', 1, 256);
  // Witness keys are read first: a bad one is a usage error before the log is read.
  if (options.witnessVkey.length > 0) await witnessKeys(options.witnessVkey).catch(usageFailure);
  const inputs = await loadVerifyInputs(read, options);
  const jobs = given ?? defaultVerifyJobs((await stat(read)).size, availableParallelism());
  // A head of a later log of this log's series names it missing; only a head of this log anchors it.
  const head = inputs.head && placeSeriesHead(inputs.head, inputs.keyring, await givenLogHeaders([read]));
  const result = await verifyReceiptLog(read, {
    keyring: inputs.keyring,
    jobs,
    ...(inputs.anchor && head?.kind === 'at' ? { anchor: inputs.anchor } : {}),
    ...(inputs.recording ? { recording: inputs.recording } : {}),
    ...openEnd(options),
  });
  const recording = options.recording === undefined ? undefined : await checkRecording(read, options.recording);
  const since =
    options.since === undefined || !result.ok ? undefined : await checkSinceNote(read, options.since, inputs.keyring);
  const witnessed = result.ok ? await checkWitnesses(log, options, read) : undefined;
  process.stdout.write(
    options.json
      ? `${JSON.stringify({
          file: log,
          ...result,
          ...(recording === undefined ? {} : { recording: { ok: recording.ok, lines: recording.lines } }),
          ...(since === undefined ? {} : { since }),
          ...(witnessed === undefined ? {} : { witnesses: witnessed }),
          ...(head === undefined ? {} : { head }),
        })}\n`
      : `${printable(verifySummary(log, result))}\n` +
          (result.ok
            ? outsideLines(log, result)
                .map((l) => `${printable(l)}\n`)
                .join('')
            : '') +
          (recording === undefined ? '' : `${recording.lines.map((l) => printable(l)).join('\n')}\n`) +
          (since === undefined ? '' : `${printable(since.line)}\n`) +
          (witnessed === undefined ? '' : `${printable(witnessed.line)}\n`) +
          (head === undefined || head.kind === 'at' ? '' : `${printable(headLine(head))}\n`),
  );
  const headOk = head === undefined || head.kind === 'at';
  if (!result.ok || !headOk || recording?.ok === false || since?.ok === false || witnessed?.ok === false)
    throw new CliExit(EXIT.drift, '');
}
