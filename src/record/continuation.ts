/**
 * @module record/continuation
 * A recorder's `continueFrom` (docs/design.md §6, "Series"): what the new recorder takes from
 * the recording it continues. With a key, its receipt log beside it (verified; a torn last line is
 * said as a warning, tampering refused naming the line): the link the new log's header holds and
 * the pauses and interruptions still open, each with its receipt's hash. Without one, the
 * recording itself, read through an observer: the pauses and interruptions still open at its end.
 */
import {
  type CarriedOpenInterruption,
  type CarriedPause,
  carriedFromObserver,
  carriedFromReceipts,
  carriedInterruptionsFromObserver,
  carriedInterruptionsFromReceipts,
} from '../observe/carried.js';
import { PauseObserver } from '../observe/pause-observer.js';
import type { Keyring } from '../receipts/keys.js';
import { MAX_LINE_BYTES } from '../receipts/log-reader.js';
import { readLogToContinue } from '../receipts/series.js';
import { stallMessage } from '../receipts/stall-record.js';
import { seriesLinkAfter } from '../receipts/series-link.js';
import type { SeriesLink } from '../receipts/types.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import { errorMessage } from '../errors.js';
import { readRecordingFile } from '../recording/recording-reader.js';
import { RecorderOptionError } from './option-error.js';
import type { RecorderWarn } from './warnings.js';

export interface Continuation {
  /** The link for the new log's header; null without a key. */
  link: SeriesLink | null;
  carried: CarriedPause[];
  /** The interruptions left open (INPUT_REQUIRED, AUTH_REQUIRED with no continuation yet). */
  interruptions: CarriedOpenInterruption[];
}

/** Reads what the recorder continues from `recording` (and `log`, its receipt log, with a key). */
export async function readContinuation(
  recording: string,
  log: string,
  keyring: Keyring | undefined,
  warn: RecorderWarn,
): Promise<Continuation> {
  const refuse = (error: unknown): never => {
    throw new RecorderOptionError('continueFrom', errorMessage(error));
  };
  if (keyring === undefined) {
    let observer: PauseObserver | undefined;
    try {
      for await (const read of readRecordingFile(recording, { allowTornTail: true, source: recording })) {
        if (read.kind === 'header') observer = new PauseObserver({ recordingId: read.header.id });
        else observer?.observe(read.entry);
      }
    } catch (error) {
      refuse(error);
    }
    return {
      link: null,
      carried: carriedFromObserver(observer?.openSuspensions() ?? []),
      interruptions: carriedInterruptionsFromObserver(observer?.openInterruptions() ?? []),
    };
  }
  const { end, tornTail, stall } = await readLogToContinue(log, keyring).catch(refuse);
  if (tornTail !== null)
    warn(`${log}: line ${tornTail} is torn (the recorder was killed mid-line): continuing after line ${tornTail - 1}`);
  if (stall !== null)
    warn(`${log}: ${stallMessage(stall)}; continuing after line ${stall.line - 1} (the series fails for them)`);
  const link = seriesLinkAfter(end);
  // The header is one line: it must stay within what a log reader takes.
  if (canonicalJson(link).length > MAX_LINE_BYTES - 4096)
    throw new RecorderOptionError(
      'continueFrom',
      `${log} ends with ${end.open.length} open pauses and ${end.interruptions.length} open ` +
        'interruptions, more than one header line can carry',
    );
  return {
    link,
    carried: carriedFromReceipts(end.open),
    interruptions: carriedInterruptionsFromReceipts(end.interruptions),
  };
}
