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
import { printable, A2aReplayError } from '../../src/public/core.js';
import {
  type LogSet,
  type VerifyResult,
  checkLogRecording,
  defaultVerifyJobs,
  fleetLines,
  fleetPauseJson,
  openLogSet,
  outsideLines,
  seriesFiles,
  seriesLine,
  verifyLogSet,
  verifyReceiptLog,
  verifySince,
  verifySummary,
  verifyWitnesses,
  witnessKeys,
  type HeadPlacement,
  givenLogHeaders,
  placeSeriesHead,
} from '../../src/public/receipts.js';
import { usageFailure } from '../record-flags.js';
import { CliExit, EXIT } from '../io.js';
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

/** Runs `check`, a problem with what the flag `flag` named being a usage error (exit 2) that names it. */
async function flagged<T>(flag: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, `${flag}${error.message}`);
    throw error;
  }
}

/** `--since`: whether the log extends the tree of a checkpoint note taken earlier, in one line. */
async function checkSinceNote(
  log: string,
  noteFile: string,
  keyring: Parameters<typeof verifySince>[3],
): Promise<Awaited<ReturnType<typeof verifySince>>> {
  let note: string;
  try {
    note = await readFile(noteFile, 'utf8');
  } catch (error) {
    throw new CliExit(
      EXIT.usage,
      `--since ${noteFile}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return flagged('--since: ', () => verifySince(log, note, noteFile, keyring));
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
): Promise<Awaited<ReturnType<typeof verifyWitnesses>> | undefined> {
  if (options.witnessVkey.length === 0) {
    if (options.witnessQuorum !== undefined || options.cosignatures !== undefined)
      throw new CliExit(EXIT.usage, '--witness-quorum and --cosignatures need --witness-vkey');
    return undefined;
  }
  const witnesses = await witnessKeys(options.witnessVkey).catch(usageFailure);
  const quorum =
    options.witnessQuorum === undefined
      ? 1
      : integerOption(options.witnessQuorum, 'witness-quorum', 1, options.witnessVkey.length);
  return flagged('--cosignatures ', () =>
    verifyWitnesses(log, { witnesses, quorum, cosignatures: options.cosignatures, read }),
  );
}

/**
 * `verify A B ...` (docs/design.md §17): each recorder's log verified as alone, or its series as a
 * series, the lines fed to one ledger that pairs resumptions of pauses outside their log with the
 * suspensions of the others. Exit 1 when a log or a series fails, or a resumption pairs with
 * nothing given (what a forger would write).
 */
async function verifyFleet(
  set: LogSet & { kind: 'fleet' },
  options: KeyOptions & OpenEndOptions & { json?: boolean; jobs?: string; recording?: string; since?: string },
): Promise<void> {
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  for (const [option, name] of [
    [options.recording, '--recording'],
    [options.since, '--since'],
  ] as const)
    if (option !== undefined) throw new CliExit(EXIT.usage, `${name} applies to one log, not to several`);
  const jobs = options.jobs === undefined ? 1 : integerOption(options.jobs, 'jobs', 1, 256);
  const { keyring } = await loadVerifyInputs(set.files[0]!, options);
  const checked = await verifyLogSet({ ...set, keyring, jobs, ...openEnd(options) });
  if (checked.kind !== 'fleet') throw new Error('a fleet verified as another kind');
  const { logs, series, verdict } = checked;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        files: logs.map(({ file, result }) => ({ file, ...result })),
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
        fleet:
          verdict === null
            ? null
            : {
                paired: verdict.paired.map(({ pause, end }) => fleetPauseJson(pause, end)),
                open: verdict.lost.map((pause) => fleetPauseJson(pause, null)),
                orphans: verdict.orphans,
                ambiguous: verdict.ambiguous,
              },
      })}\n`,
    );
  } else {
    const lines: string[] = [];
    const logLines = (file: string, result: VerifyResult): string[] => [
      verifySummary(file, result),
      ...(result.ok ? outsideLines(file, result) : []),
    ];
    for (const group of set.groups) {
      const inSeries = series.find((s) => s.result.members.some((m) => group.files.includes(m.path)));
      if (group.linked && inSeries) {
        for (const m of inSeries.result.members) lines.push(...logLines(m.path, m.result));
        lines.push(seriesLine(inSeries.result), ...inSeries.stray);
      } else {
        const one = logs.find((l) => l.file === group.files[0]);
        if (one) lines.push(...logLines(one.file, one.result));
      }
    }
    if (verdict !== null) lines.push(...fleetLines(set.files.length, verdict));
    process.stdout.write(lines.map((l) => `${printable(l)}\n`).join(''));
  }
  if (!checked.ok) throw new CliExit(EXIT.drift, '');
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
        const set = await openLogSet(logs);
        try {
          if (set.kind === 'series') return await verifySeriesCommand(set.files, options, verifySummary);
          if (set.kind === 'fleet') return await verifyFleet(set, options);
          await verifyOne(set.given, set.files[0]!, options);
        } finally {
          await set.close();
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
  const recording =
    options.recording === undefined ? undefined : await flagged('', () => checkLogRecording(read, options.recording!));
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
