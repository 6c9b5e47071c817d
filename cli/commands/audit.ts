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
import { canonicalJson, A2aReplayError, printable } from '../../src/public/core.js';
import {
  type AuditFilter,
  type AuditRow,
  type FleetPlace,
  type InterruptionAuditRow,
  type LogSet,
  InterruptionAuditCollector,
  auditFleet,
  auditLogSet,
  auditReceiptLog,
  openLogSet,
  givenLogHeaders,
  placeSeriesHead,
  recordingRules,
  recordingVersions,
  verifySummary,
} from '../../src/public/receipts.js';
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

/** Runs `read` over the recording given, an error reading it being a usage error (exit 2). */
async function fromRecording<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
}

interface AuditCommandOptions extends KeyOptions, OpenEndOptions {
  json?: boolean;
  task?: string;
  initiator?: string;
  kind?: string;
  agentPrincipal: string[];
}

const place = (p: FleetPlace | null): string => (p === null ? '-' : `${p.file}:${p.line}`);

/**
 * `audit A B ...` (docs/design.md §17): each log audited as alone, a pause ended in another given
 * log taking that end; every row says which file saw the pause begin and which saw it end. A log
 * that does not verify is not audited (exit 1).
 */
async function auditFleetCommand(
  set: LogSet & { kind: 'fleet' },
  options: AuditCommandOptions,
  filter: AuditFilter,
): Promise<void> {
  if (options.recording !== undefined) throw new CliExit(EXIT.usage, '--recording applies to one log');
  if (options.checkpoint !== undefined)
    throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
  const { keyring } = await loadVerifyInputs(set.files[0]!, options);
  const audit = await auditFleet(set, {
    keyring,
    filter,
    agentPrincipals: options.agentPrincipal,
    ...openEnd(options),
  });
  if (!audit.audited) {
    process.stderr.write(`a2a-replay: not audited: ${printable(audit.why)}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  const { rows } = audit;
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
  process.stderr.write(`${printable(audit.notes.join('\n'))}\n`);
  if (!audit.ok) throw new CliExit(EXIT.drift, '');
}

/** Audits the series given as one log; prints as `audit` prints one log. */
async function auditSeriesCommand(
  set: LogSet & { kind: 'series' },
  options: KeyOptions & OpenEndOptions & { json?: boolean; agentPrincipal: string[] },
  filter: AuditFilter,
): Promise<void> {
  if (options.recording !== undefined) throw new CliExit(EXIT.usage, '--recording applies to one log, not to a series');
  const inputs = await loadVerifyInputs(set.files[0]!, options);
  // The series' head (`--checkpoint`) is checked against the log it names (docs/design.md §6).
  const headed = await openLogSet(set.files, { keys: inputs.keyring, ...openEnd(options), head: inputs.head });
  const { ok, rows, verification } = await auditLogSet(headed, { agentPrincipals: options.agentPrincipal, filter });
  if (verification.kind !== 'series') throw new CliExit(EXIT.usage, `${set.files.join(', ')}: not one series`);
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
      const set = await openLogSet(logs);
      try {
        if (set.kind === 'series') return await auditSeriesCommand(set, options, filter);
        if (set.kind === 'fleet') return await auditFleetCommand(set, options, filter);
        await auditOne(set.given, set.files[0]!, options, filter);
      } finally {
        await set.close();
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
      ? await fromRecording(() => recordingRules(options.recording!, options.allowTornTail === true))
      : undefined;
  const versionsOf =
    options.recording === undefined
      ? undefined
      : await fromRecording(() => recordingVersions(options.recording!, options.allowTornTail === true));
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
