/**
 * @module logs/log-set
 * Receipt logs as given (docs/design.md §6, §17): {@link openLogSet} takes files, directories,
 * recordings standing for the log beside them, and OpenTelemetry collector exports, and tells one
 * log, one series (logs whose headers name one series, read as one log) or a fleet (several
 * recorders' logs or series, whose pauses pair across them). {@link verifyLogSet} verifies it as
 * `verify` does, and {@link lostPauses} lists what never came back as `lost` does (a recording
 * too); `auditLogSet` (logs/log-set-audit) audits a log or a series.
 */
import { stat } from 'node:fs/promises';
import { A2aReplayError } from '../errors.js';
import { FleetLedger, type FleetVerdict, fleetFails } from '../receipts/fleet.js';
import { loadKeyFile } from '../receipts/key-file.js';
import { Keyring, ReceiptKey } from '../receipts/keys.js';
import { type SeriesResult, verifySeries } from '../receipts/series.js';
import { type VerifyResult, verifyReceiptLog } from '../receipts/verify.js';
import { type LostInterruptionListing, type LostPauseListing, OpenSuspensions } from '../observe/lost-pauses.js';
import { receiptLogInput } from './collector-input.js';
import { describeVerification } from './describe-verification.js';
import type { FleetOrphanContinuation } from './fleet-interruption-ledger.js';
import { fleetVerdictOf } from './fleet-lost.js';
import { type LogGroup, givenLogs } from './given-logs.js';
import { strayLogs, verifyGroupInto } from './group-series.js';
import { type Dialects, firstLineType, lostInReceiptLog, lostInRecording, unreceiptedInLog } from './lost-reading.js';
import type { LogStall } from '../receipts/stall-record.js';
import type { LostChain } from '../observe/verdict-chains.js';
import type { RecordingBinding } from '../receipts/types.js';
import { readRecordingBinding } from '../receipts/recording-binding.js';
import { type LogChecks, type LogChecksFound, givenInput, logChecksOk, runLogChecks } from './log-checks.js';
import { readFirstLine } from './first-line.js';
import type { RecordingGaps } from './recording-gaps.js';
import { type HeadPlacement, givenLogHeaders, placeSeriesHead } from './series-head.js';
import { type SeriesHead, readSeriesHead } from '../receipts/log-head.js';
import { lostInSeries } from './series-lost.js';

/** How a log set is read. */
export interface LogSetOptions {
  /** Keys to verify with: a keyring, a key, or key files' paths. */
  keys?: Keyring | ReceiptKey | string | readonly string[] | undefined;
  /** Accept a log that does not end in a checkpoint (a recorder still running or killed). */
  allowOpen?: boolean | undefined;
  /** Accept a last line cut off by a crash (it is reported, not verified). */
  allowTornTail?: boolean | undefined;
  /** Threads checking signatures and canonical forms of each log read alone (see `VerifyOptions.jobs`). */
  jobs?: number | undefined;
  /**
   * The head kept outside the logs (a checkpoint file, `record --witness FILE`), or its path: it
   * must be the checkpoint of the last log given, or of one given; a head of a later log names the
   * logs missing (docs/design.md §6, "The head of a series"). One log or one series; not a fleet.
   */
  head?: SeriesHead | string | undefined;
}

interface SetBase {
  /** The receipt logs read, in the order given (a directory's by name). */
  files: string[];
  keyring: Keyring | undefined;
  allowOpen: boolean;
  allowTornTail: boolean;
  jobs: number | undefined;
  head: SeriesHead | undefined;
  /** Removes what opening made (a log rebuilt from a collector export). */
  close(): Promise<void>;
}

/** One log, many logs of one series, or a fleet of logs and series. */
export type LogSet =
  | (SetBase & {
      kind: 'log';
      /** The file as given (a collector export, or the log itself). */
      given: string;
      /** The origin of a log taken from a collector export; null for a receipt log file. */
      origin: string | null;
    })
  | (SetBase & { kind: 'series'; group: LogGroup })
  | (SetBase & { kind: 'fleet'; groups: LogGroup[] });

async function keyringOf(keys: LogSetOptions['keys']): Promise<Keyring | undefined> {
  if (keys === undefined) return undefined;
  if (keys instanceof Keyring) return keys;
  if (keys instanceof ReceiptKey) return new Keyring([keys]);
  const files = typeof keys === 'string' ? [keys] : keys;
  if (files.length === 0) return undefined;
  const keyring = new Keyring();
  for (const file of files) keyring.add((await loadKeyFile(file)).key);
  return keyring;
}

/** Opens the receipt logs `paths` name (see the module doc); a path that cannot be read is an error naming it. */
export async function openLogSet(paths: readonly string[], options: LogSetOptions = {}): Promise<LogSet> {
  if (paths.length === 0) throw new A2aReplayError('INVALID_ARGUMENT', 'no receipt log given');
  const base = {
    keyring: await keyringOf(options.keys),
    allowOpen: options.allowOpen ?? false,
    allowTornTail: options.allowTornTail ?? false,
    jobs: options.jobs,
    head: typeof options.head === 'string' ? await readSeriesHead(options.head) : options.head,
  };
  const one = paths.length === 1 && (await stat(paths[0]!).catch(() => null))?.isDirectory() !== true;
  if (one) {
    const given = paths[0]!;
    const input = await receiptLogInput(given);
    return { kind: 'log', given, origin: input.origin, files: [input.path], ...base, close: () => input.cleanup() };
  }
  const { files, groups, series } = await givenLogs(paths);
  const close = async (): Promise<void> => undefined;
  if (!series && base.head !== undefined)
    throw new A2aReplayError('INVALID_ARGUMENT', 'a head applies to one log or one series, not to a fleet');
  return series
    ? { kind: 'series', files, group: groups[0]!, ...base, close }
    : { kind: 'fleet', files, groups, ...base, close };
}

/** Where the set's head stands among its logs; null without a head. */
export async function placeHead(set: LogSet, keyring: Keyring): Promise<HeadPlacement | null> {
  if (set.head === undefined) return null;
  return placeSeriesHead(set.head, keyring, await givenLogHeaders(set.files));
}

/** The set's keyring; without one, an error saying `what` needs a key. */
export function keyringFor(set: LogSet, what: string): Keyring {
  if (set.keyring === undefined)
    throw new A2aReplayError('INVALID_ARGUMENT', `${what} needs a key: open the log set with \`keys\``);
  return set.keyring;
}

/**
 * What {@link verifyLogSet} found: ok when every log and series verified, a fleet paired, and a
 * head given was the checkpoint of a log given (`head`: where it stands; absent without one).
 */
export type LogSetVerification =
  | ({ kind: 'log'; ok: boolean; file: string; result: VerifyResult; head?: HeadPlacement } & LogChecksFound)
  | { kind: 'series'; ok: boolean; series: SeriesResult; head?: HeadPlacement }
  | {
      kind: 'fleet';
      ok: boolean;
      logs: { file: string; result: VerifyResult }[];
      series: { result: SeriesResult; stray: string[] }[];
      /** The pairing across logs; null when a log or series did not verify. */
      verdict: FleetVerdict | null;
    };

/**
 * Verifies the set as `verify` does: each log, each series' links, a fleet's pairing; and of one
 * log, `checks` (its recording, a note it must extend, its witnesses: ok only when each holds).
 */
export async function verifyLogSet(set: LogSet, checks: LogChecks = {}): Promise<LogSetVerification> {
  const keyring = keyringFor(set, 'verifying');
  if (set.kind !== 'log' && Object.values(checks).some((c) => c !== undefined))
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `a recording, a note or witnesses apply to one log, not to a ${set.kind}`,
    );
  const openEnd = { allowOpen: set.allowOpen, allowTornTail: set.allowTornTail };
  const jobs = set.jobs === undefined ? {} : { jobs: set.jobs };
  const placed = set.kind === 'fleet' ? null : await placeHead(set, keyring);
  const anchor = placed?.kind === 'at' ? set.head : undefined;
  const head = placed === null ? {} : { head: placed };
  const headOk = placed === null || placed.kind === 'at';
  if (set.kind === 'log') {
    const read = set.files[0]!;
    const recording =
      checks.recording === undefined ? {} : { recording: await givenInput(readRecordingBinding(checks.recording)) };
    const result = await verifyReceiptLog(read, {
      keyring,
      ...jobs,
      ...openEnd,
      ...(anchor ? { anchor: anchor.checkpoint } : {}),
      ...recording,
    });
    const found = await runLogChecks(set.given, read, result.ok, checks, keyring);
    const ok = result.ok && headOk && logChecksOk(found);
    return { kind: 'log', ok, file: set.given, result, ...found, ...head };
  }
  if (set.kind === 'series') {
    const series = await verifySeries(set.group.files, {
      keyring,
      ...openEnd,
      ...(anchor && placed?.kind === 'at' ? { anchorAt: { path: placed.path, checkpoint: anchor.checkpoint } } : {}),
    });
    return { kind: 'series', ok: series.ok && headOk, series, ...head };
  }
  const ledger = new FleetLedger();
  const logs: { file: string; result: VerifyResult }[] = [];
  const series: { result: SeriesResult; stray: string[] }[] = [];
  for (const group of set.groups) {
    if (group.linked) {
      const result = await verifyGroupInto(ledger, group, { keyring, ...openEnd });
      series.push({ result, stray: result.ok ? [] : strayLogs(group, set.groups) });
      for (const m of result.members) logs.push({ file: m.path, result: m.result });
      continue;
    }
    const file = group.files[0]!;
    ledger.startLog(file);
    const result = await verifyReceiptLog(file, {
      keyring,
      ...jobs,
      ...openEnd,
      onLine: ({ number, line, hash }) => ledger.add(line, number, hash),
    });
    logs.push({ file, result });
  }
  const verdict = ledger.finish();
  const verified = logs.every((l) => l.result.ok) && series.every((s) => s.result.ok);
  return {
    kind: 'fleet',
    ok: verified && !fleetFails(verdict),
    logs,
    series,
    verdict: verified ? verdict : null,
  };
}

/** What never came back, and what the listing rests on. */
export interface LostPauses {
  kind: 'recording' | 'log' | 'series' | 'fleet';
  /** The files read, in order (a series' by position). */
  files: string[];
  /** The pauses never resumed (for a fleet, those open when every log ended). */
  lost: LostPauseListing[];
  /**
   * The interruptions never continued. For a fleet, those open when every log ended, each paired
   * within its own log or series and naming the file and line of its receipt (`interruptedIn`):
   * an ask answered through another replica than the one that saw it is among them (no receipt
   * ties the answer to it, docs/design.md §17).
   */
  interruptions: LostInterruptionListing[];
  /** `recording`, `unverified`, or what the verification rests on (describeVerification). */
  verification: string;
  /** A fleet's whole verdict: pauses paired across logs, orphan resumptions, ambiguous ones. */
  fleet?: FleetVerdict;
  /** For a fleet: continuations naming an interruption no given log holds (they fail it, as orphan resumptions). */
  orphanContinuations?: FleetOrphanContinuation[];
  /**
   * For a recording: where the observer could not follow the peer (entries incomplete, requests not
   * understood, what it could not read of the peer's answers). With any, the listing is not a
   * clean verdict (see {@link gapless}); null for receipt logs.
   */
  gaps: RecordingGaps | null;
  /** For one log: the lines its recorder could not write (a full disk until it stopped), moves with no receipt. */
  unreceipted?: LogStall | null;
  /** For a recording: the exchanges by A2A version, and with `explain` each lost pause's chain of rules. */
  recording?: {
    dialects: Dialects;
    chains: readonly LostChain[];
  };
}

/** How {@link lostPauses} reads. */
export interface LostPausesOptions {
  /** For a recording: the facts and rules that led to each lost pause. */
  explain?: boolean | undefined;
  /** For one log verified with keys: the recording it must be the log of (`readRecordingBinding`). */
  recording?: RecordingBinding | undefined;
}

/** Whether `file` is a recording or a receipt log, by its header; anything else is an error naming line 1. */
export async function fileKind(file: string): Promise<'recording' | 'receipt log'> {
  return firstLineType(file, await readFirstLine(file)) === 'recording' ? 'recording' : 'receipt log';
}

async function lostInRecordingFile(file: string, allowTornTail: boolean, explain: boolean): Promise<LostPauses> {
  const read = await lostInRecording(file, allowTornTail, explain);
  const { lost, interruptions, gaps, dialects, chains } = read;
  return {
    kind: 'recording',
    files: [file],
    lost,
    interruptions,
    verification: 'recording',
    gaps,
    recording: { dialects, chains },
  };
}

/**
 * The lost pauses of a log set, or of a recording (the observer's verdicts over its entries,
 * given as its path or as a set of one file that is a recording, with where it could not follow
 * the peer: `gaps`). With keys, each log is verified as it is read and one that does not verify is
 * an error naming its line; an open end is accepted and said.
 */
export async function lostPauses(
  setOrRecording: LogSet | string,
  options: LostPausesOptions = {},
): Promise<LostPauses> {
  const explain = options.explain ?? false;
  if (typeof setOrRecording === 'string') {
    const file = setOrRecording;
    if ((await fileKind(file)) !== 'recording')
      throw new A2aReplayError('INVALID_ARGUMENT', `${file}: a receipt log: open it with openLogSet`);
    return lostInRecordingFile(file, false, explain);
  }
  const set = setOrRecording;
  // The head first: a log it names that was not given holds what may be lost.
  const problem = await headProblem(set);
  if (problem !== null) throw new A2aReplayError('RECEIPT_INVALID', problem);
  if (set.kind === 'series') {
    const read = await lostInSeries(set.group.files, set.keyring, set.allowTornTail);
    const { lost, interruptions, verification, files } = read;
    return { kind: 'series', files, lost, interruptions, verification, gaps: null };
  }
  if (set.kind === 'fleet') {
    const { verdict, interruptions } = await fleetVerdictOf(
      { files: set.files, groups: set.groups, series: false },
      set.keyring,
      set.allowTornTail,
    );
    return {
      kind: 'fleet',
      files: set.files,
      lost: [],
      interruptions: interruptions.lost,
      verification: set.keyring ? 'receipt logs, verified' : 'receipt logs, unverified',
      fleet: verdict,
      orphanContinuations: interruptions.orphans,
      gaps: null,
    };
  }
  const file = set.files[0]!;
  if ((await fileKind(file)) === 'recording') {
    if (set.keyring !== undefined)
      throw new A2aReplayError('INVALID_ARGUMENT', `${set.given}: a recording is not signed: read it without keys`);
    return lostInRecordingFile(file, set.allowTornTail, explain);
  }
  const files = [set.given];
  if (set.keyring === undefined) {
    const open = await lostInReceiptLog(file, set.allowTornTail);
    const unreceipted = await unreceiptedInLog(file);
    return {
      kind: 'log',
      files,
      lost: open.lost(),
      interruptions: open.lostInterruptions(),
      verification: 'unverified',
      unreceipted,
      gaps: null,
    };
  }
  // One pass: the open suspensions are those of the lines as they verified, so the listing is of
  // the log that verified even if the file changes meanwhile (a recorder still appending). An open
  // end is what lost pauses are (a recorder killed before its closing checkpoint).
  const open = new OpenSuspensions();
  const result = await verifyReceiptLog(file, {
    keyring: set.keyring,
    allowOpen: true,
    allowTornTail: set.allowTornTail,
    ...(options.recording ? { recording: options.recording } : {}),
    onLine: ({ line, hash }) => open.add(line, hash),
  });
  const unreceipted = result.firstError?.reason === 'unreceipted' && result.stall ? result.stall : null;
  if (!result.ok && unreceipted === null) {
    const failure = result.firstError;
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `${set.given}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
        `${failure?.message ?? ''})`,
    );
  }
  return {
    kind: 'log',
    files,
    lost: open.lost(),
    interruptions: open.lostInterruptions(),
    verification: describeVerification(result).basis.join('; '),
    gaps: null,
    unreceipted,
  };
}

/**
 * What is wrong with the set as its head shows it, in one line (a later log missing, a head that
 * does not check, or the log it names not matching it); null without a head, or when all is well.
 * The set is verified with its head, an open end accepted (a recorder still running or killed).
 */
export async function headProblem(set: LogSet): Promise<string | null> {
  if (set.head === undefined) return null;
  const verified = await verifyLogSet({ ...set, allowOpen: true });
  return verified.ok ? null : verificationFailure(verified);
}

/** Why a verification of one log or one series failed, in one line. */
function verificationFailure(verified: LogSetVerification): string {
  if (verified.kind === 'fleet') return 'the fleet does not verify';
  if (verified.head !== undefined && verified.head.kind !== 'at') return verified.head.message;
  if (verified.kind === 'series') return `the series does not verify: ${verified.series.error?.message ?? ''}`;
  const e = verified.result.firstError;
  return `${verified.file}:${e?.line ?? '?'}: does not verify (${e?.reason ?? 'unknown'}: ${e?.message ?? ''})`;
}
