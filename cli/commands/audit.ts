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
 * also says which log saw it (pause or interruption) begin and end (§17); a series as one log.
 * The audit is the library's (`auditLogSet`, `auditFleet`); this module parses the flags and prints.
 */
import type { Command } from 'commander';
import { A2aReplayError, printable } from '../../src/public/core.js';
import {
  AUDIT_KINDS,
  type AuditFilter,
  type FleetAudit,
  type LogSetAudit,
  type LogSetAuditOptions,
  auditFleet,
  auditLogSet,
  auditNotes,
  auditRefusal,
  openLogSet,
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
import * as tables from '../audit-tables.js';

const INITIATORS = { client: 'PAUSE_INITIATOR_CLIENT', agent: 'PAUSE_INITIATOR_AGENT' } as const;

interface AuditCommandOptions extends KeyOptions, OpenEndOptions {
  json?: boolean;
  task?: string;
  initiator?: string;
  kind?: string;
  agentPrincipal: string[];
}

/** What `--task`, `--initiator`, `--kind`, `--agent-principal` and `--recording` ask of the audit. */
function auditOptions(options: AuditCommandOptions): LogSetAuditOptions {
  const filter: AuditFilter = {};
  if (options.task !== undefined) filter.taskId = options.task;
  if (options.initiator !== undefined) {
    if (options.initiator !== 'client' && options.initiator !== 'agent')
      throw new CliExit(
        EXIT.usage,
        `--initiator: expected "client" or "agent", got ${JSON.stringify(options.initiator)}`,
      );
    filter.initiatedBy = INITIATORS[options.initiator];
  }
  const kind = AUDIT_KINDS.find((k) => k === options.kind);
  if (options.kind !== undefined && kind === undefined)
    throw new CliExit(EXIT.usage, `--kind: expected "pause" or "interruption", got ${JSON.stringify(options.kind)}`);
  return { filter, kind, agentPrincipals: options.agentPrincipal, recording: options.recording };
}

/** A library error (an unreadable recording, a head that cannot be read) as a usage error (exit 2). */
function asUsage(error: unknown): never {
  if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
  throw error;
}

/** Each row with its kind (audit --kind, docs/design.md §14.9); an interruption row says its own. */
const kinded = (entries: readonly { kind: string; row: object }[]): object[] =>
  entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : e.row));

/** Prints the audit of a fleet (docs/design.md §17): each row says which file saw the pause begin and end. */
async function printFleet(audit: FleetAudit, asked: LogSetAuditOptions, json: boolean): Promise<void> {
  if (!audit.audited) {
    process.stderr.write(`a2a-replay: not audited: ${printable(audit.why)}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  if (json) process.stdout.write(`${JSON.stringify(kinded(audit.entries))}\n`);
  else if (asked.kind === 'interruption') await writeLines(tables.fleetInterruptionTableLines(audit.interruptions));
  else if (audit.interruptions.length > 0) await writeLines(tables.fleetBothTableLines(audit.entries));
  else await writeLines(tables.fleetTableLines(audit.rows));
  process.stderr.write(`${printable(audit.notes.join('\n'))}\n`);
  if (!audit.ok) throw new CliExit(EXIT.drift, '');
}

/** Prints the audit of a log or a series: its rows (JSON or a table), then its notes on stderr. */
async function printAudit(audit: LogSetAudit, asked: LogSetAuditOptions, json: boolean): Promise<void> {
  const refusal = auditRefusal(audit);
  if (refusal !== null) {
    process.stderr.write(`a2a-replay: not audited: ${printable(refusal)}\n`);
    throw new CliExit(EXIT.drift, '');
  }
  if (json) return void process.stdout.write(`${JSON.stringify(kinded(audit.entries))}\n`);
  if (asked.kind === 'interruption') await writeLines(tables.interruptionTableLines(audit.interruptions));
  else if (audit.interruptions.length > 0) await writeLines(tables.bothTableLines(audit.entries));
  else await writeLines(tables.auditTableLines(audit.rows));
  process.stderr.write(`${printable(auditNotes(audit, asked).join('; '))}\n`);
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
      const asked = auditOptions(options);
      const set = await openLogSet(logs);
      try {
        if (set.kind !== 'log' && options.recording !== undefined)
          throw new CliExit(EXIT.usage, `--recording applies to one log, not to a ${set.kind}`);
        if (set.kind === 'fleet' && options.checkpoint !== undefined)
          throw new CliExit(EXIT.usage, '--checkpoint applies to one log or one series, not to a fleet');
        // The recording is read by the audit itself (its rules and versions as well as its binding).
        const { recording: _, ...keyOptions } = options;
        const { keyring, head } = await loadVerifyInputs(set.files[0]!, keyOptions);
        const opened = { keyring, ...openEnd(options) };
        const json = options.json === true;
        if (set.kind === 'fleet') return await printFleet(await auditFleet(set, { ...opened, ...asked }), asked, json);
        // A head of a later log than those given names it missing (docs/design.md §6).
        const audit = await auditLogSet({ ...set, ...opened, head }, asked).catch(asUsage);
        await printAudit(audit, asked, json);
      } finally {
        await set.close();
      }
    });
}
