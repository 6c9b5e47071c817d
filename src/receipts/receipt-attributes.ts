/**
 * @module receipts/receipt-attributes
 * The attribute names a receipt-log line carries as an OTLP log record (docs/design.md §6,
 * "Receipts through the telemetry pipeline"). Two of them, the task id and the receipt hash, name
 * the same things on spans (src/tracing/attributes.ts re-exports them), so one name means one
 * thing on both; they are defined here so that the receipts stand without the telemetry layer.
 */

/** The A2A task id. */
export const ATTR_TASK_ID = 'a2a.task.id';
/** Hash of the receipt a line or a span stands for (on a span, set just before it ends, docs/design.md §7). */
export const ATTR_RECEIPT_HASH = 'a2a.receipt.hash';

/** The line's `type`: ReceiptLog (the header), SuspensionReceipt, ResumptionReceipt or Checkpoint. */
export const ATTR_RECEIPT_TYPE = 'a2a.receipt.type';
/** The kid that signed the line (the checkpoint kid for a checkpoint and the header). */
export const ATTR_RECEIPT_KID = 'a2a.receipt.kid';
/** A receipt's `seq`; absent on the header and checkpoints. */
export const ATTR_RECEIPT_SEQ = 'a2a.receipt.seq';
/** The log's origin, as its checkpoint notes name it. */
export const ATTR_RECEIPT_LOG_ORIGIN = 'a2a.receipt_log.origin';
/** The line's 0-based index in its log (the header is 0): how a log is put back together in order. */
export const ATTR_RECEIPT_LOG_INDEX = 'a2a.receipt_log.index';
