/**
 * @module logs/audit-notes
 * What an audit of a log or a series rests on, in words (docs/design.md §6): the line `audit`
 * prints when it audited nothing, and the notes it prints beside the rows — how many of each kind,
 * the verification, agent pauses requested by another principal, receipts naming what the set does
 * not hold.
 */
import { verifySummary } from './describe-verification.js';
import { type LogSetAudit, type LogSetAuditOptions, lists } from './log-set-audit.js';

const counted = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Why the audit listed nothing, in one line: the head given is no given log's checkpoint, the
 * series or the log does not verify; null when it was audited.
 */
export function auditRefusal(audit: LogSetAudit): string | null {
  if (audit.ok) return null;
  const { verification } = audit;
  if (verification.kind === 'fleet') return 'the fleet does not verify';
  const { head } = verification;
  if (head !== undefined && head.kind !== 'at')
    return `head ${head.kind === 'missing' ? 'MISSING LOG' : 'INVALID'}: ${head.message}`;
  if (verification.kind === 'series') return `series INVALID: ${verification.series.error?.message ?? ''}`;
  return verifySummary(verification.file, verification.result);
}

/**
 * The notes of an audit made with `options`, each a phrase (`audit` joins them with "; "): the
 * count of each kind listed (of interruptions, when asked for alone or when there are any), what
 * the verification found, agent pauses requested by a principal not the agent's own, and orphans.
 */
export function auditNotes(audit: LogSetAudit, options: LogSetAuditOptions = {}): string[] {
  const notes: string[] = [];
  if (lists(options, 'pause')) notes.push(counted(audit.rows.length, 'suspension'));
  if (lists(options, 'interruption') && (options.kind === 'interruption' || audit.interruptions.length > 0))
    notes.push(counted(audit.interruptions.length, 'interruption'));
  const { verification } = audit;
  if (verification.kind === 'log') notes.push(verifySummary(verification.file, verification.result));
  else if (verification.kind === 'series')
    notes.push(`series ${verification.series.id ?? '-'} of ${verification.series.members.length} logs verified`);
  const flagged = audit.rows.filter((r) => r.flags.length > 0).length;
  if (flagged > 0) {
    const who =
      (options.agentPrincipals ?? []).length === 0 ? 'no --agent-principal given' : 'not an --agent-principal';
    notes.push(`${counted(flagged, 'agent pause')} requested by another principal (${who})`);
  }
  const { resumptions, continuations } = audit.orphans;
  if (resumptions > 0) notes.push(`${resumptions} resumption(s) name a suspension not in this log`);
  if (continuations > 0) notes.push(`${continuations} continuation(s) name an interruption not in this log`);
  return notes;
}
