/**
 * @module receipts/series-link
 * The link a continuing log's header holds to the log before it (docs/design.md §6, "Series"):
 * made from where that log ended, and read back as the suspensions and interruptions it carries
 * in, each checked as its own signed receipt. Pure: no I/O.
 */
import { canonicalJson, sha256Prefixed } from '../canonical/canonical-json.js';
import type { Keyring } from './keys.js';
import { logName } from './log-tree.js';
import { checkReceiptSignature } from './signing.js';
import type { InterruptionReceipt, ReceiptLogHeader, SeriesLink, SuspensionReceipt } from './types.js';
import type { VerifyFailure } from './verify-failure.js';

/** The hash a SuspensionReceipt's line has in its log: that of its canonical text. */
export function suspensionHash(receipt: SuspensionReceipt): string {
  return sha256Prefixed(canonicalJson(receipt));
}

/** The hash an InterruptionReceipt's line has in its log, as a ContinuationReceipt names it. */
export function interruptionHash(receipt: InterruptionReceipt): string {
  return sha256Prefixed(canonicalJson(receipt));
}

/**
 * The receipts of one kind a log's header carries in, by hash and task, each signed by a key
 * given (with an HMAC key; with a public key alone they are taken as written, as the log's own
 * receipts are); or the failure naming the header line `n`.
 */
function carried(
  receipts: readonly (SuspensionReceipt | InterruptionReceipt)[],
  what: string,
  keyring: Keyring,
  n: number,
): { hash: string; taskId: string }[] | VerifyFailure {
  const out: { hash: string; taskId: string }[] = [];
  for (const [i, receipt] of receipts.entries()) {
    const { sig, ...body } = receipt;
    const check = checkReceiptSignature(body, sig, keyring);
    if (check === 'bad_signature')
      return {
        line: n,
        reason: 'bad_signature',
        message:
          `line ${n}: carried ${what} ${i + 1} (task ${receipt.taskId}): its signature does not match its ` +
          'content (edited or forged)',
      };
    if (check !== 'ok' && keyring.hasHmac)
      return {
        line: n,
        reason: 'unknown_kid',
        message: `line ${n}: carried ${what} ${i + 1} is signed by kid ${sig.kid}, and no HMAC key for it was given`,
      };
    out.push({ hash: sha256Prefixed(canonicalJson(receipt)), taskId: receipt.taskId });
  }
  return out;
}

/** The suspensions a log's header carries in from its predecessor (see {@link carried}). */
export function carriedSuspensions(
  header: ReceiptLogHeader,
  keyring: Keyring,
  n: number,
): { suspension: string; taskId: string }[] | VerifyFailure {
  const out = carried(header.series?.previous.open ?? [], 'suspension', keyring, n);
  return 'reason' in out ? out : out.map(({ hash, taskId }) => ({ suspension: hash, taskId }));
}

/** The interruptions a log's header carries in from its predecessor, open here (see {@link carried}). */
export function carriedInterruptions(
  header: ReceiptLogHeader,
  keyring: Keyring,
  n: number,
): { interruption: string; taskId: string }[] | VerifyFailure {
  const out = carried(header.series?.previous.interruptions ?? [], 'interruption', keyring, n);
  return 'reason' in out ? out : out.map(({ hash, taskId }) => ({ interruption: hash, taskId }));
}

/** Where a log ended, as the log continuing it states it. */
export interface LogEnd {
  header: ReceiptLogHeader;
  headerHash: string;
  head: string;
  lines: number;
  receipts: number;
  closed: boolean;
  checkpoint: { size: number; root: string; note: string | null } | null;
  /** The SuspensionReceipts open at its end, in the order they were sealed. */
  open: SuspensionReceipt[];
  /** The InterruptionReceipts no continuation closed by its end, in the order they were sealed. */
  interruptions: InterruptionReceipt[];
}

/** The id of the series a log belongs to: its link's, or, for a first log, its own name (§6). */
export function seriesIdOf(header: ReceiptLogHeader, headerHash: string): string {
  return header.series?.id ?? logName(header.recording, headerHash);
}

/** The link a log continuing `end` puts in its header. */
export function seriesLinkAfter(end: LogEnd): SeriesLink {
  return {
    id: seriesIdOf(end.header, end.headerHash),
    position: (end.header.series?.position ?? 1) + 1,
    previous: {
      recording: end.header.recording,
      header: end.headerHash,
      head: end.head,
      lines: end.lines,
      receipts: end.receipts,
      closed: end.closed,
      checkpoint: end.checkpoint,
      open: end.open,
      // Only when some are open: a link without them reads as before.
      ...(end.interruptions.length > 0 ? { interruptions: end.interruptions } : {}),
    },
  };
}
