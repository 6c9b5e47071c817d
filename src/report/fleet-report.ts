/**
 * @module report/fleet-report
 * The report of a fleet (docs/design.md §12, §17): the receipt logs of several recorder replicas,
 * each replica's log or series of logs, as one section. Each series' lines go in series order to
 * one set of rows (a pause begun in one log and resumed in a later one of the series is one row)
 * and to one `FleetLedger`, so a pause begun in one replica's log and resumed in another's is
 * shown ended by that resumption, not lost; every row says which log and line saw it begin and
 * end, and a resumption no given log pairs is named as an orphan. Logs are streamed: the memory
 * held is the rows', not the logs'.
 */
import { sha256Prefixed } from '../canonical/canonical-json.js';
import { type FleetOutsideEnd, FleetLedger, ambiguityText } from '../receipts/fleet.js';
import type { Keyring } from '../receipts/keys.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { verifyReceiptLog } from '../receipts/verify.js';
import { lanesOf, logChecks, receiptLine, rowsOf, sectionOf, verdictOf, verificationOf } from './build-report.js';
import type { ReportRow, ReportSection } from './html-report.js';
import { ReceiptRows, type ShownPause } from './receipt-rows.js';

/** One recorder's logs: one log, or its series in series order. */
export interface FleetReportGroup {
  id: string;
  files: readonly string[];
}

/** One series read: its rows, and which of its logs holds each suspension and what closed it. */
interface GroupRead {
  receipts: ReceiptRows;
  begunIn: Map<string, string>;
  endedIn: Map<string, string>;
  verification: Map<string, (line: number, seq: number) => ReportRow['verification']>;
}

/** Reads one recorder's logs, verified alone each when a key is given, into rows and the ledger. */
async function readGroup(
  group: FleetReportGroup,
  ledger: FleetLedger,
  keyring: Keyring | undefined,
  notes: string[],
  checked: string[],
): Promise<GroupRead> {
  const read: GroupRead = {
    receipts: new ReceiptRows(),
    begunIn: new Map(),
    endedIn: new Map(),
    verification: new Map(),
  };
  for (const file of group.files) {
    const result = keyring
      ? await verifyReceiptLog(file, { keyring, allowOpen: true, allowTornTail: true })
      : undefined;
    read.verification.set(file, verificationOf(result));
    const checks = logChecks(result);
    for (const note of checks.notes) notes.push(`${file}: ${note}`);
    checked.push(`${file}: ${checks.checked}`);
    ledger.startLog(file, group.id);
    for await (const lines of readLogChunks(file)) {
      for (const raw of lines) {
        if (raw.text === null || !raw.complete || raw.text.trim() === '') continue;
        const line = receiptLine(raw.text);
        if (!line) continue;
        const hash = sha256Prefixed(raw.text);
        read.receipts.add(line, hash, raw.number);
        ledger.add(line, raw.number, hash);
        if (line.type === 'SuspensionReceipt') read.begunIn.set(hash, file);
        else if (line.type === 'ResumptionReceipt' && line.suspension !== null && line.outcome !== 'rejected')
          read.endedIn.set(line.suspension, file);
      }
    }
  }
  return read;
}

/** A row open in its own series that a resumption in another replica's log ended shows that end. */
function endedElsewhere(pause: ShownPause, end: FleetOutsideEnd): void {
  const text = [end.outcome, `(${end.cause})`, end.resumedAt === null ? '' : `at ${end.resumedAt}`]
    .filter(Boolean)
    .join(' ');
  pause.row.outcome = end.outcome;
  pause.row.ended = text;
  pause.row.endedIn = `${end.ended.file}:${end.ended.line}`;
  pause.lane.ended = text;
  pause.lane.lost = null;
  pause.lane.to = end.resumedAt === null ? null : Date.parse(end.resumedAt);
}

/**
 * The section of a fleet: `groups` are the replicas' logs (each a log alone or a series in
 * series order); `notes` are said first (the command's own checks of each series).
 */
export async function fleetSection(
  groups: readonly FleetReportGroup[],
  keyring: Keyring | undefined,
  notes: readonly string[] = [],
): Promise<ReportSection> {
  const ledger = new FleetLedger();
  const logNotes: string[] = [];
  const checked: string[] = [];
  const reads: GroupRead[] = [];
  for (const group of groups) reads.push(await readGroup(group, ledger, keyring, logNotes, checked));
  const verdict = ledger.finish();
  const endOf = new Map(verdict.paired.map(({ pause, end }) => [`${pause.begun.file}\n${pause.begun.line}`, end]));
  // A pause an ambiguous resumption may have ended is neither ended nor lost (§17).
  const maybe = new Set(
    verdict.ambiguous.flatMap(({ candidates }) => candidates.map((p) => `${p.begun.file}\n${p.begun.line}`)),
  );
  const shown: ShownPause[] = [];
  for (const read of reads) {
    const fileOf = (suspension: string): string => read.begunIn.get(suspension) ?? '';
    const pauses = read.receipts.build(
      (row) =>
        endOf.has(`${fileOf(row.suspension)}\n${row.line}`) || maybe.has(`${fileOf(row.suspension)}\n${row.line}`)
          ? null
          : 'recording_ended',
      (line, seq, row) =>
        // As the log holding the row's last receipt verified (a later log of its series, once closed there).
        read.verification.get(read.endedIn.get(row.suspension) ?? fileOf(row.suspension))?.(line, seq) ?? {
          status: 'not checked',
          why: 'no key given',
        },
    );
    for (const pause of pauses) {
      const { suspension, line, closedAtLine } = pause.audit;
      const file = fileOf(suspension);
      pause.row.pausedIn = `${file}:${line}`;
      const closedIn = read.endedIn.get(suspension);
      pause.row.endedIn = closedAtLine === null || closedIn === undefined ? null : `${closedIn}:${closedAtLine}`;
      const end = endOf.get(`${file}\n${line}`);
      if (end !== undefined && pause.audit.outcome === 'open') endedElsewhere(pause, end);
      shown.push(pause);
    }
  }
  const rows = rowsOf(shown);
  const files = groups.flatMap((g) => g.files);
  const orphans = verdict.orphans.map(
    (o) =>
      `orphan: task ${o.taskId} ${o.outcome} in ${o.ended.file}:${o.ended.line} (seq ${o.ended.seq}), naming a ` +
      'pause outside its log that no given log holds',
  );
  const allVerified = keyring !== undefined && checked.every((c) => c.endsWith(': verified'));
  const verification = keyring === undefined ? 'not verified (no key)' : allVerified ? 'verified' : checked.join('; ');
  return sectionOf(
    `fleet: ${files.join(', ')}`,
    'fleet',
    `${verdictOf(rows)}, ${orphans.length} orphan resumption${orphans.length === 1 ? '' : 's'}, ${verification}`,
    lanesOf(new Map(), shown),
    rows,
    [
      `a fleet of ${files.length} logs from ${groups.length} recorder${groups.length === 1 ? '' : 's'}: ` +
        `${verdict.paired.length} paused in one log and resumed in another`,
      ...notes,
      ...orphans,
      ...verdict.ambiguous.map((a) => `ambiguous: ${ambiguityText(a)}`),
      ...logNotes,
    ],
  );
}
