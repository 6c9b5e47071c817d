/**
 * @module logs/fleet-lost
 * The lost pauses of a fleet (docs/design.md §17): the receipt logs of several recorders as one
 * record. A pause resumed in another given log is not lost; one open when every log ended is
 * (`recording_ended`); a resumption that pairs with no given pause is an `orphan`. In the same pass
 * its interruptions are paired within each log or series (logs/fleet-interruption-ledger): one
 * open when every log ended is lost, a continuation naming none given an orphan. With a key each
 * log is verified as it is read (a kid with no key fails naming the file), each series as `verify`
 * checks one; a log or series that does not verify stops the reading, naming it.
 */
import { A2aReplayError } from '../errors.js';
import { FleetLedger, type FleetVerdict } from '../receipts/fleet.js';
import type { Keyring } from '../receipts/keys.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { plainSeriesProblem } from '../receipts/series-plain.js';
import { verifyReceiptLog } from '../receipts/verify.js';
import type { GivenLogs } from './given-logs.js';
import { FleetInterruptionLedger, type FleetInterruptions } from './fleet-interruption-ledger.js';
import { type LineLedger, orderedUnverified, verifyGroupInto } from './group-series.js';
import { readLostLine, refuseUnreceipted } from './lost-reading.js';

/**
 * The fleet's verdict (pauses paired across logs, lost, orphan resumptions, ambiguous ones) and its
 * interruptions (those never continued, orphan continuations), from one reading of the logs.
 */
export async function fleetVerdictOf(
  given: GivenLogs,
  keyring: Keyring | undefined,
  allowTornTail: boolean,
): Promise<{ verdict: FleetVerdict; interruptions: FleetInterruptions }> {
  const { groups } = given;
  const ledger = new FleetLedger();
  const asked = new FleetInterruptionLedger();
  // Every line goes to both: the pauses' ledger and the interruptions'.
  const both: LineLedger = {
    startLog(file, series) {
      ledger.startLog(file, series);
      asked.startLog(file, series);
    },
    add(line, number, hash) {
      ledger.add(line, number, hash);
      asked.add(line, number, hash);
    },
  };
  for (const group of groups) {
    if (group.linked && keyring) {
      // The series verified as `verify` checks one; each log before its last may end open or torn.
      const series = await verifyGroupInto(both, group, { keyring, allowOpen: true, allowTornTail });
      if (!series.ok)
        throw new A2aReplayError('RECEIPT_INVALID', `the series does not verify: ${series.error?.message ?? ''}`);
      continue;
    }
    const ordered = group.linked ? orderedUnverified(group) : group.files;
    const problem = group.linked && !keyring ? await plainSeriesProblem(ordered) : null;
    if (problem !== null)
      throw new A2aReplayError('RECEIPT_INVALID', `the series does not hold together: ${problem.message}`);
    if (!keyring) await refuseUnreceipted(ordered);
    for (const [i, file] of ordered.entries()) {
      both.startLog(file, group.id);
      if (!keyring) {
        // A log of a series before its last may end torn: its successor began after it.
        const tornOk = allowTornTail || i < ordered.length - 1;
        for await (const chunk of readLogChunks(file))
          for (const raw of chunk) {
            const line = readLostLine(file, raw, tornOk);
            if (line) both.add(line, raw.number);
          }
        continue;
      }
      const result = await verifyReceiptLog(file, {
        keyring,
        allowOpen: true,
        allowTornTail,
        onLine: ({ number, line, hash }) => both.add(line, number, hash),
      });
      const failure = result.firstError;
      if (!result.ok)
        throw new A2aReplayError(
          // A log that lacks lines its stall record lists is a verdict (exit 1), as for one log.
          failure?.reason === 'unreceipted' ? 'RECEIPT_INVALID' : 'INVALID_ARGUMENT',
          `${file}:${failure?.line ?? '?'}: does not verify (${failure?.reason ?? 'unknown'}: ` +
            `${failure?.message ?? ''})`,
        );
    }
  }
  return { verdict: ledger.finish(), interruptions: asked.finish() };
}
