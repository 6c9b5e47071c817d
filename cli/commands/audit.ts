/**
 * @module cli/commands/audit
 * `a2a-replay audit LOG [--json] [--task ID] [--initiator client|agent] [--agent-principal P]...`:
 * one row per suspension — who paused which task, when, why, under which conditions, and how it
 * ended — verified as it reads: a log that does not verify is reported (exit 1), not audited. An
 * agent-initiated pause that a client requested (`AwaitTaskResumption`) as a principal other than
 * the agent's own is flagged (docs/design.md §6). With `--recording`, `--json` gives each row the
 * observer rules that decided it, worked out again from the recording (§14.8). Interruptions
 * (INPUT_REQUIRED, AUTH_REQUIRED, §14.9) are rows too: who continued each one, when and with what;
 * `--kind` lists one kind, both by default (with a KIND column when the log holds interruptions).
 * Several logs (or directories of them) are audited as one fleet of recorder replicas: each row
 * also says which log saw the pause begin and which saw it end (§17); the logs of a series as one log.
 */
import type { Command } from 'commander';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { A2aReplayError } from '../../src/errors.js';
import { EntryVersions } from '../../src/observe/entry-versions.js';
import { VerdictRules } from '../../src/observe/verdict-rules.js';
import { printable } from '../../src/printable.js';
import {
  AuditCollector,
  type AuditFilter,
  type AuditRow,
  type RulesOf,
  type VersionsOf,
  auditReceiptLog,
} from '../../src/receipts/audit.js';
import type { VerifyOptions } from '../../src/receipts/verify.js';
import { InterruptionAuditCollector, type InterruptionAuditRow } from '../../src/receipts/interruption-audit.js';
import { readRecordingFile } from '../../src/recording/recording-reader.js';
import { receiptLogInput } from '../../src/logs/collector-input.js';
import { CliExit, EXIT, writeLines } from '../io.js';
import {
  type KeyOptions,
  type OpenEndOptions,
  loadVerifyInputs,
  openEnd,
  withKeyOptions,
  withOpenEndOptions,
} from '../options.js';
import { textTableLines, withVersionColumn } from '../text-table.js';
import { verifySummary } from '../../src/logs/describe-verification.js';
import { auditLogSet, openLogSet } from '../../src/logs/log-set.js';
import { givenLogHeaders, placeSeriesHead } from '../../src/logs/series-head.js';
import { seriesLine } from '../../src/logs/describe-verification.js';
import { seriesFiles } from '../../src/receipts/series.js';
import { type FleetPlace, FleetLedger, ambiguityText, fleetFails } from '../../src/receipts/fleet.js';
import { type GivenLogs, type LogGroup, manyLogs } from '../../src/logs/given-logs.js';
import { verifyGroupInto } from '../../src/logs/group-series.js';

const INITIATORS = { client: 'PAUSE_INITIATOR_CLIENT', agent: 'PAUSE_INITIATOR_AGENT' } as const;

function initiatorLabel(value: AuditRow['initiatedBy']): string {
  switch (value) {
    case 'PAUSE_INITIATOR_CLIENT':
      return 'client';
    case 'PAUSE_INITIATOR_AGENT':
      return 'agent';
    case 'PAUSE_INITIATOR_UNSPECIFIED':
      return 'unspecified';
    default: {
      const never: never = value;
      return String(never);
    }
  }
}

function ending(row: AuditRow): string {
  if (row.outcome === 'open') return 'still open';
  return [
    row.outcome,
    row.cause ? `(${row.cause})` : '',
    row.closedAt ? `at ${row.closedAt}` : '',
    row.closedBy ? `by ${row.closedBy}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function flagText(row: AuditRow): string {
  const flags: string[] = [...row.flags];
  if (!row.vouched) flags.push('not-vouched-for-by-a-checkpoint');
  return flags.length === 0 ? '-' : flags.map((f) => `! ${f}`).join(', ');
}

const AUDIT_HEADER = [
  'TASK',
  'INITIATED BY',
  'PRINCIPAL',
  'REASON',
  'CONDITIONS',
  'PAUSED AT',
  'ENDED',
  'REJECTED',
  'FLAG',
  'TRACE',
];

/** A row's cells in the plain-text table. */
function auditCells(r: AuditRow): string[] {
  return [
    r.taskId,
    initiatorLabel(r.initiatedBy),
    r.principal ?? '-',
    r.reason ?? '-',
    r.conditions === null ? '-' : canonicalJson(r.conditions),
    r.pausedAt,
    ending(r),
    String(r.rejectedAttempts),
    flagText(r),
    r.span.traceId,
  ];
}

/** The plain-text table, one row per suspension, line by line. */
export function auditTableLines(rows: readonly AuditRow[]): Iterable<string> {
  const [header, cells] = withVersionColumn(rows, AUDIT_HEADER, auditCells, (r) => r.a2aVersions);
  return textTableLines(header, rows, cells);
}

const KINDS = ['pause', 'interruption'] as const;
type AuditKind = (typeof KINDS)[number];

/** `INPUT_REQUIRED` for `TASK_STATE_INPUT_REQUIRED`. */
const stateLabel = (r: InterruptionAuditRow): string => r.state.replace(/^TASK_STATE_/, '');

function continued(r: InterruptionAuditRow): string {
  if (r.outcome === 'open') return 'still open';
  return [
    `continued (${r.cause ?? '-'})`,
    r.continuedAt ? `at ${r.continuedAt}` : '',
    r.continuedBy ? `by ${r.continuedBy}` : '',
    r.inputHash ? `with ${r.inputHash}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const INTERRUPTION_HEADER = ['TASK', 'STATE', 'PROMPT', 'INTERRUPTED AT', 'CONTINUED', 'FLAG', 'TRACE'];

/** The plain-text table of `--kind interruption`: who continued each interruption, when and with what. */
export function interruptionTableLines(rows: readonly InterruptionAuditRow[]): Iterable<string> {
  const [header, cells] = withVersionColumn(
    rows,
    INTERRUPTION_HEADER,
    (r) => [
      r.taskId,
      stateLabel(r),
      r.promptHash ?? '-',
      r.interruptedAt,
      continued(r),
      r.vouched ? '-' : '! not-vouched-for-by-a-checkpoint',
      r.span.traceId,
    ],
    (r) => r.a2aVersions,
  );
  return textTableLines(header, rows, cells);
}

type AnyRow = { kind: 'pause'; row: AuditRow } | { kind: 'interruption'; row: InterruptionAuditRow };

const BOTH_HEADER = ['KIND', ...AUDIT_HEADER];

/** Both kinds in one table, in log order, with a KIND column (docs/design.md §6). */
function bothTableLines(rows: readonly AnyRow[]): Iterable<string> {
  const [header, cells] = withVersionColumn(
    rows,
    BOTH_HEADER,
    (r) => {
      if (r.kind === 'pause') return ['pause', ...auditCells(r.row)];
      const i = r.row;
      return [
        'interruption',
        i.taskId,
        stateLabel(i),
        i.continuedBy ?? '-',
        i.promptHash === null ? '-' : `prompt ${i.promptHash}`,
        '-',
        i.interruptedAt,
        continued(i),
        '-',
        i.vouched ? '-' : '! not-vouched-for-by-a-checkpoint',
        i.span.traceId,
      ];
    },
    (r) => r.row.a2aVersions,
  );
  return textTableLines(header, rows, cells);
}

/** The A2A versions of the recording `file`'s entries, when any exchange of it is not 1.0 (design §14.10). */
async function versionsOfRecording(file: string, allowTornTail: boolean): Promise<VersionsOf | undefined> {
  const versions = new EntryVersions();
  try {
    for await (const read of readRecordingFile(file, { allowTornTail, source: file }))
      if (read.kind === 'entry') versions.add(read.entry);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
  return versions.named ? (seqs) => versions.ofEntries(seqs) : undefined;
}

/**
 * The rules of each pause of the recording `file`, by Suspension span: the observer run over it
 * again (it is pure, so it decides as it did when the receipts were made, docs/design.md §14.8).
 */
async function rulesOfRecording(file: string, allowTornTail: boolean): Promise<RulesOf> {
  let rules: VerdictRules | undefined;
  let lastAt = '';
  try {
    for await (const read of readRecordingFile(file, { allowTornTail, source: file })) {
      if (read.kind === 'header') {
        rules = new VerdictRules(read.header.id);
        lastAt = read.header.createdAt;
      } else {
        rules?.observe(read.entry);
        lastAt = read.entry.at;
      }
    }
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
  rules?.finish(lastAt);
  return (span) => rules?.of(span);
}

interface AuditCommandOptions extends KeyOptions, OpenEndOptions {
  json?: boolean;
  task?: string;
  initiator?: string;
  kind?: string;
  agentPrincipal: string[];
}

/** An audit row of a fleet: which log saw the pause begin, and which saw it end. */
type FleetRow = AuditRow & { pausedIn: FleetPlace; endedIn: FleetPlace | null };

const place = (p: FleetPlace | null): string => (p === null ? '-' : `${p.file}:${p.line}`);

/**
 * The rows of one replica's series in a fleet: the series verified and its lines, in series order,
 * fed to one collector (a pause begun in one log and resumed in a later one is one row) and to the
 * fleet's ledger; each row says which of its logs saw the pause begin and end. A series that does
 * not verify is not audited (exit 1).
 */
async function auditGroup(
  ledger: FleetLedger,
  group: LogGroup,
  verify: Omit<VerifyOptions, 'onLine' | 'jobs'>,
  options: AuditCommandOptions,
  filter: AuditFilter,
  notes: string[],
): Promise<FleetRow[]> {
  const collector = new AuditCollector({ agentPrincipals: options.agentPrincipal });
  // Which log holds each suspension and each resumption that closed one (by the suspension's hash).
  const begunIn = new Map<string, string>();
  const endedIn = new Map<string, string>();
  const series = await verifyGroupInto(ledger, group, verify, (path, verified) => {
    collector.onLine(verified);
    const { line, hash } = verified;
    if (line.type === 'SuspensionReceipt') begunIn.set(hash, path);
    else if (line.type === 'ResumptionReceipt' && line.suspension !== null && line.outcome !== 'rejected')
      endedIn.set(line.suspension, path);
  });
  if (!series.ok) {
    process.stderr.write(`a2a-replay: not audited: series INVALID: ${printable(series.error?.message ?? '')}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  notes.push(seriesLine(series));
  return collector.rows(filter).map((row) => {
    const file = begunIn.get(row.suspension) ?? group.files[0]!;
    const closed = endedIn.get(row.suspension);
    return {
      ...row,
      pausedIn: { file, line: row.line },
      endedIn: row.closedAtLine === null || closed === undefined ? null : { file: closed, line: row.closedAtLine },
    };
  });
}

/**
 * `audit A B ...` (docs/design.md §17): each log audited as alone, then a pause open in its own log
 * that a resumption in another given log ended takes that end; every row says which file saw the
 * pause begin and which saw it end. A log that does not verify is not audited (exit 1).
 */
async function auditFleet(given: GivenLogs, options: AuditCommandOptions, filter: AuditFilter): Promise<void> {
  if (options.recording !== undefined) throw new CliExit(EXIT.usage, '--recording applies to one log');
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  const { files, groups } = given;
  const ledger = new FleetLedger();
  const rows: FleetRow[] = [];
  const notes: string[] = [];
  for (const group of groups) {
    const { keyring } = await loadVerifyInputs(group.files[0]!, options);
    if (group.linked) {
      rows.push(...(await auditGroup(ledger, group, { keyring, ...openEnd(options) }, options, filter, notes)));
      continue;
    }
    const file = group.files[0]!;
    ledger.startLog(file);
    const result = await auditReceiptLog(file, {
      keyring,
      filter,
      agentPrincipals: options.agentPrincipal,
      ...openEnd(options),
      onLine: ({ number, line, hash }) => ledger.add(line, number, hash),
    });
    if (!result.verify.ok) {
      process.stderr.write(`a2a-replay: not audited: ${printable(verifySummary(file, result.verify))}\n`);
      throw new CliExit(EXIT.drift, '');
    }
    notes.push(verifySummary(file, result.verify));
    for (const row of result.rows) {
      const closedHere = row.closedAtLine === null ? null : { file, line: row.closedAtLine };
      rows.push({ ...row, pausedIn: { file, line: row.line }, endedIn: closedHere });
    }
  }
  const verdict = ledger.finish();
  const ends = new Map(verdict.paired.map(({ pause, end }) => [`${pause.begun.file}\n${pause.begun.line}`, end]));
  for (const row of rows) {
    const end = ends.get(`${row.pausedIn.file}\n${row.pausedIn.line}`);
    if (!end || row.outcome !== 'open') continue;
    Object.assign(row, {
      outcome: end.outcome,
      cause: end.cause,
      closedAt: end.resumedAt,
      closedBy: end.principal,
      closedAtLine: end.ended.line,
      endedIn: { file: end.ended.file, line: end.ended.line },
    });
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows.map((row) => ({ kind: 'pause', ...row })))}\n`);
  } else
    await writeLines(
      textTableLines([...AUDIT_HEADER, 'PAUSED IN', 'ENDED IN'], rows, (r) => [
        ...auditCells(r),
        place(r.pausedIn),
        place(r.endedIn),
      ]),
    );
  notes.unshift(`${rows.length} suspension${rows.length === 1 ? '' : 's'} in a fleet of ${files.length} logs`);
  for (const o of verdict.orphans)
    notes.push(
      `orphan: task ${o.taskId} ${o.outcome} in ${o.ended.file}:${o.ended.line}, naming a pause no given log holds`,
    );
  for (const a of verdict.ambiguous) notes.push(`ambiguous: ${ambiguityText(a)}`);
  process.stderr.write(`${printable(notes.join('\n'))}\n`);
  // An orphan is what a forger would use, an ambiguity a guess not made: as verify and lost, audit
  // fails on either (docs/design.md §17).
  if (fleetFails(verdict)) throw new CliExit(EXIT.drift, '');
}

/** Audits the series given (src/logs/series-audit.ts); prints as `audit` prints one log. */
async function auditSeriesCommand(
  logs: readonly string[],
  options: KeyOptions & OpenEndOptions & { json?: boolean; agentPrincipal: string[] },
  filter: AuditFilter,
): Promise<void> {
  if (options.recording !== undefined) throw new CliExit(EXIT.usage, '--recording applies to one log, not to a series');
  const files = await seriesFiles(logs);
  const inputs = await loadVerifyInputs(files[0]!, options);
  // The series' head (`--checkpoint`) is checked against the log it names (docs/design.md §6).
  const set = await openLogSet(files, { keys: inputs.keyring, ...openEnd(options), head: inputs.head });
  const { ok, rows, verification } = await auditLogSet(set, { agentPrincipals: options.agentPrincipal, filter });
  if (verification.kind !== 'series') throw new CliExit(EXIT.usage, `${logs.join(', ')}: not one series`);
  const { series, head } = verification;
  if (!ok) {
    const why =
      head !== undefined && head.kind !== 'at'
        ? `head ${head.kind === 'missing' ? 'MISSING LOG' : 'INVALID'}: ${head.message}`
        : `series INVALID: ${series.error?.message ?? ''}`;
    process.stderr.write(`a2a-replay: not audited: ${printable(why)}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  if (options.json) {
    // As one log's rows: each says its kind (audit --kind, docs/design.md §14.9).
    process.stdout.write(`${JSON.stringify(rows.map((row) => ({ kind: 'pause', ...row })))}\n`);
    return;
  }
  await writeLines(auditTableLines(rows));
  const count = `${rows.length} suspension${rows.length === 1 ? '' : 's'}`;
  process.stderr.write(
    `${printable(`${count}; series ${series.id ?? '-'} of ${series.members.length} logs verified`)}\n`,
  );
}

export function registerAudit(program: Command): void {
  withOpenEndOptions(withKeyOptions(program.command('audit')))
    .description(
      'who paused which task, when, why, and how it ended (verifies the log as it reads); the logs of a ' +
        'series are one log, other logs (or directories of them) one fleet: each row says which log saw ' +
        'the pause begin and end',
    )
    .argument('<logs...>', 'receipt logs (*.receipts.jsonl), recordings (their logs beside them) or directories')
    .option(
      '--json',
      'print the rows as a JSON array; each row\'s "rules" ({pause, end}: the observer rules that proved and ' +
        'ended it) are worked out from --recording, and null without it (a receipt log holds no rule)',
    )
    .option('--task <id>', 'only this task')
    .option('--initiator <who>', 'only pauses initiated by "client" or "agent"')
    .option(
      '--kind <kind>',
      '"pause" (suspensions) or "interruption" (INPUT_REQUIRED and AUTH_REQUIRED: who continued, when, with what); ' +
        'default both, with a KIND column when the log holds interruptions',
    )
    .option(
      '--agent-principal <principal>',
      "a principal the agent itself acts as (repeatable); other principals' AwaitTaskResumption calls are flagged",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (logs: string[], options: AuditCommandOptions) => {
      const filter: AuditFilter = {};
      if (options.task !== undefined) filter.taskId = options.task;
      if (options.initiator !== undefined) {
        if (options.initiator !== 'client' && options.initiator !== 'agent') {
          throw new CliExit(
            EXIT.usage,
            `--initiator: expected "client" or "agent", got ${JSON.stringify(options.initiator)}`,
          );
        }
        filter.initiatedBy = INITIATORS[options.initiator];
      }
      const many = await manyLogs(logs);
      if (many?.series) return auditSeriesCommand(many.files, options, filter);
      if (many) return auditFleet(many, options, filter);
      const [log] = logs;
      if (log === undefined) throw new CliExit(EXIT.usage, 'no receipt log given');
      const input = await receiptLogInput(log);
      try {
        await auditOne(log, input.path, options, filter);
      } finally {
        await input.cleanup();
      }
    });
}

/** Audits the log read from `read` (the file itself, or one rebuilt from a collector export), named `log`. */
async function auditOne(log: string, read: string, options: AuditCommandOptions, filter: AuditFilter): Promise<void> {
  const kind = options.kind;
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind))
    throw new CliExit(EXIT.usage, `--kind: expected "pause" or "interruption", got ${JSON.stringify(kind)}`);
  const wants = (k: AuditKind): boolean =>
    (kind === undefined || kind === k) && (k === 'pause' || options.initiator === undefined);
  const interruptions = new InterruptionAuditCollector();
  const inputs = await loadVerifyInputs(read, options);
  // A head of a later log of this log's series names it missing (docs/design.md §6).
  const head = inputs.head && placeSeriesHead(inputs.head, inputs.keyring, await givenLogHeaders([read]));
  if (head !== undefined && head.kind !== 'at') {
    const what = head.kind === 'missing' ? 'MISSING LOG' : 'INVALID';
    process.stderr.write(`a2a-replay: not audited: head ${what}: ${printable(head.message)}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  const rulesOf =
    options.json && options.recording !== undefined
      ? await rulesOfRecording(options.recording, options.allowTornTail === true)
      : undefined;
  const versionsOf =
    options.recording === undefined
      ? undefined
      : await versionsOfRecording(options.recording, options.allowTornTail === true);
  const result = await auditReceiptLog(read, {
    ...(versionsOf ? { versionsOf } : {}),
    keyring: inputs.keyring,
    ...(inputs.anchor ? { anchor: inputs.anchor } : {}),
    ...(inputs.recording ? { recording: inputs.recording } : {}),
    filter,
    agentPrincipals: options.agentPrincipal,
    ...(rulesOf ? { rulesOf } : {}),
    onLine: interruptions.onLine,
    ...openEnd(options),
  });
  if (!result.verify.ok) {
    process.stderr.write(`a2a-replay: not audited: ${printable(verifySummary(log, result.verify))}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  const pauses = wants('pause') ? result.rows : [];
  const asked = wants('interruption') ? interruptions.rows(options.task, result.verify.vouched, versionsOf) : [];
  const all: AnyRow[] = [
    ...pauses.map((row): AnyRow => ({ kind: 'pause', row })),
    ...asked.map((row): AnyRow => ({ kind: 'interruption', row })),
  ].sort((a, b) => a.row.line - b.row.line);
  if (options.json) {
    const rows = all.map((r) => (r.kind === 'pause' ? { kind: 'pause', ...r.row } : r.row));
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  if (kind === 'interruption') await writeLines(interruptionTableLines(asked));
  else if (asked.length > 0) await writeLines(bothTableLines(all));
  else await writeLines(auditTableLines(pauses));
  const notes: string[] = [];
  if (wants('pause')) notes.push(`${pauses.length} suspension${pauses.length === 1 ? '' : 's'}`);
  if (wants('interruption') && (kind === 'interruption' || asked.length > 0))
    notes.push(`${asked.length} interruption${asked.length === 1 ? '' : 's'}`);
  notes.push(verifySummary(log, result.verify));
  const flagged = pauses.filter((r) => r.flags.length > 0).length;
  if (flagged > 0) {
    const who = options.agentPrincipal.length === 0 ? 'no --agent-principal given' : 'not an --agent-principal';
    notes.push(`${flagged} agent pause${flagged === 1 ? '' : 's'} requested by another principal (${who})`);
  }
  if (result.orphans > 0) notes.push(`${result.orphans} resumption(s) name a suspension not in this log`);
  if (interruptions.orphans > 0)
    notes.push(`${interruptions.orphans} continuation(s) name an interruption not in this log`);
  process.stderr.write(`${printable(notes.join('; '))}\n`);
}
