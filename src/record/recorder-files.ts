/**
 * @module record/recorder-files
 * The files a recorder writes (docs/design.md §5, §6, §10), checked before anything is written
 * and then opened: the recording (its header holding the upstream's agent card), the receipt log
 * set up exactly as replay derives it (src/replay/derive-receipts.ts: header `createdAt` and
 * `recording` from the recording's header, `tool` = TOOL_NAME), so that `a2a-replay run X.jsonl
 * --key K --strict` reproduces it byte for byte; with rotation, the series of them by position.
 */
import { lstat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { systemClock } from '../clock.js';
import { A2aReplayError } from '../errors.js';
import { fetchAgentCard } from '../http/agent-card-fetch.js';
import { randomIdSource } from '../ids.js';
import { foreignInterfaceUrls, uncarriedBindings } from '../intercept/agent-card-rewrite.js';
import { parseGrpcTarget } from '../intercept/grpc-upstream.js';
import { refuseSymlink } from '../output-file.js';
import { errorMessage } from '../errors.js';
import { cosignaturesPathFor } from '../receipts/cosignature-file.js';
import { loadKeyFile } from '../receipts/key-file.js';
import { Keyring, ReceiptKey } from '../receipts/keys.js';
import { stallRecordPath } from '../receipts/stall-record.js';
import { ReceiptLogWriter } from '../receipts/log-writer.js';
import type { SeriesLink } from '../receipts/types.js';
import type { RecordingHeader } from '../recording/format.js';
import { fileLineSink } from '../recording/line-sink.js';
import { RecordingWriter } from '../recording/recording-writer.js';
import { type Redactor, redactUrl } from '../recording/redaction.js';
import { TOOL_NAME } from '../version.js';
import { type Continuation, readContinuation } from './continuation.js';
import { grpcUpstreamOf } from './grpc-target.js';
import { RecorderOptionError } from './option-error.js';
import { openReceiptShipping } from './receipt-shipping.js';
import type { ReceiptShipping } from './receipt-shipping-setup.js';
import type { RecorderOptions, RecorderSettings } from './recorder-options.js';
import { recordRedaction } from './redaction-setup.js';
import { RotatingLog, RotatingRecording, assertNoLaterFiles } from './rotation.js';
import { readRecordTls } from './tls-files.js';
import { type RecordWitnesses, recordWitnesses } from './witnesses.js';
import type { RecorderWarn } from './warnings.js';

/** `X.jsonl` pairs with `X.receipts.jsonl` (docs/design.md §10). */
export function receiptsPathFor(recording: string): string {
  const name = basename(recording);
  const stem = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  return join(dirname(recording), `${stem}.receipts.jsonl`);
}

/** An error naming `option` whose file cannot be used. */
function optionError(option: string): (error: unknown) => never {
  return (error) => {
    throw new RecorderOptionError(option, errorMessage(error));
  };
}

/** Something is at `file`: a file, or a link (dangling or not), which is never written through. */
async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}

/** The receipt key as given: a key file's path (its warnings said), a key, or a keyring. */
async function keyringOf(key: RecorderOptions['key'], warn: RecorderWarn): Promise<Keyring | undefined> {
  if (key === undefined) return undefined;
  if (key instanceof Keyring) return key;
  if (key instanceof ReceiptKey) return new Keyring([key]);
  const loaded = await loadKeyFile(key).catch(optionError('key'));
  for (const warning of loaded.warnings) warn(`warning: ${warning}`);
  return new Keyring([loaded.key]);
}

/** What {@link checkRecorderFiles} found. */
export interface RecorderFiles {
  keyring: Keyring | undefined;
  redactor: Redactor;
  receiptsFile: string;
  continuation: Continuation;
  tls: Awaited<ReturnType<typeof readRecordTls>>;
}

/**
 * Checks the files the options name before anything is written (no symbolic link, no recording
 * overwritten without `force`, no receipt log or cosignature file overwritten ever) and reads the
 * key, the TLS files and what `continueFrom` carries.
 */
export async function checkRecorderFiles(options: RecorderOptions, warn: RecorderWarn): Promise<RecorderFiles> {
  try {
    new URL(options.upstream);
  } catch {
    throw new RecorderOptionError('upstream', `${JSON.stringify(redactUrl(options.upstream))} is not a URL`);
  }
  if (options.grpcUpstream !== undefined) {
    try {
      parseGrpcTarget(options.grpcUpstream);
    } catch (error) {
      throw new RecorderOptionError('grpcUpstream', errorMessage(error));
    }
  }
  for (const [option, file] of [
    ['out', options.out],
    ['receipts', options.receipts],
    ['witness', options.witness],
  ] as const) {
    if (file !== undefined) await refuseSymlink(file).catch(optionError(option));
  }
  if (options.force !== true && (await exists(options.out)))
    throw new RecorderOptionError(
      'out',
      `${options.out} already exists: name another file, or pass \`force\` to overwrite it`,
    );
  const keyring = await keyringOf(options.key, warn);
  const redactor = recordRedaction(options, keyring);
  const receiptsFile = options.receipts ?? receiptsPathFor(options.out);
  if (keyring && (await exists(receiptsFile)))
    throw new RecorderOptionError(
      'receipts',
      `${receiptsFile} already exists (receipt logs are append-only): move it away or name another file ` +
        'with `receipts`',
    );
  if (keyring === undefined && options.otlpLogs !== undefined)
    throw new RecorderOptionError('otlpLogs', 'ships receipts: give a receipt key (`key`)');
  if ((options.witnessUrl ?? []).length > 0) {
    // Witnesses cosign checkpoint notes, which only an Ed25519 key signs (docs/design.md §6).
    if (!keyring?.hasEd25519Public)
      throw new RecorderOptionError('witnessUrl', 'witnesses cosign checkpoint notes: give a key with an Ed25519 pair');
    const sidecar = cosignaturesPathFor(receiptsFile);
    await refuseSymlink(sidecar).catch(optionError('witnessUrl'));
    if (await exists(sidecar))
      throw new RecorderOptionError('witnessUrl', `${sidecar} already exists (cosignature files are append-only)`);
  }
  const continuation: Continuation =
    options.continueFrom === undefined
      ? { link: null, carried: [], interruptions: [] }
      : await readContinuation(options.continueFrom, receiptsPathFor(options.continueFrom), keyring, warn);
  if (options.rotateBytes !== undefined || options.rotateAfter !== undefined)
    await assertNoLaterFiles(keyring ? [options.out, receiptsFile] : [options.out], continuation.link?.position ?? 1);
  return { keyring, redactor, receiptsFile, continuation, tls: await readRecordTls(options) };
}

/** Opens a receipt log at `path` for the recording of `header`, its header linked by `series`. */
type OpenLog = (path: string, series: SeriesLink | null, header: RecordingHeader) => Promise<ReceiptLogWriter>;

/** What {@link openRecorderFiles} opened. */
export interface OpenedFiles {
  writer: RotatingRecording;
  log: RotatingLog | undefined;
  witnesses: RecordWitnesses | undefined;
  shipping: ReceiptShipping | undefined;
  grpcUpstream: string;
}

/** Says what the upstream's agent card names that the recorder will not see. */
function warnAboutCard(card: unknown, upstream: string, grpcUpstream: string, warn: RecorderWarn): void {
  if (card === undefined)
    warn(`no agent card answered at the upstream's /.well-known/agent-card.json; recording without it`);
  const foreign = foreignInterfaceUrls(card, new URL(upstream), parseGrpcTarget(grpcUpstream));
  if (foreign.length > 0)
    warn(
      `the upstream's agent card names ${foreign.map((url) => redactUrl(url)).join(', ')}, not the upstream: ` +
        'a client that follows it talks to that server directly, and nothing of it is recorded',
    );
  const uncarried = uncarriedBindings(card);
  if (uncarried.length > 0)
    warn(
      `the upstream's agent card names ${uncarried.join(', ')}: the recorder carries JSONRPC, ` +
        'HTTP+JSON and GRPC only, so a client that uses that interface is not recorded',
    );
}

/**
 * Opens the recording (its header holding the upstream's agent card) and, with a key, the receipt
 * log, set up as replay derives it; each a series by position when the settings rotate
 * (docs/design.md §6, "Rotation").
 */
export async function openRecorderFiles(
  options: RecorderOptions,
  files: RecorderFiles,
  settings: RecorderSettings,
  reportOnce: (what: string) => (error: unknown) => void,
  warn: RecorderWarn,
): Promise<OpenedFiles> {
  const { keyring, receiptsFile } = files;
  // The upstream's card, kept in the header so that `run` knows the peer it was made against.
  const card = await fetchAgentCard(options.upstream, { ...files.tls.upstream });
  // Written with its secrets marked (interface URLs' user-info and keys, credential members).
  const agentCard = card === undefined ? undefined : files.redactor.json(structuredClone(card));
  const grpcUpstream = grpcUpstreamOf(options.grpcUpstream, options.upstream, card);
  warnAboutCard(card, options.upstream, grpcUpstream, warn);
  // Each file of a rotated recording holds the card too, so that each reads on its own.
  const openRecording = (path: string, replace = false): RecordingWriter =>
    new RecordingWriter({
      ...(agentCard === undefined ? {} : { agentCard }),
      sink: fileLineSink(path, { replace }),
      clock: systemClock,
      ids: randomIdSource,
      target: redactUrl(options.upstream),
      onError: reportOnce(`writing ${path}`),
    });
  const first = openRecording(options.out, options.force === true);
  await first.flush();
  if (first.failed) throw new A2aReplayError('IO_FAILED', `${options.out}: cannot write the recording`);
  const position = files.continuation.link?.position ?? 1;
  const writer = new RotatingRecording({
    first,
    path: options.out,
    position,
    open: openRecording,
    limits: settings.rotation,
    clock: systemClock,
    sync: settings.fsync !== 'never',
  });
  if (keyring === undefined) {
    warn('no receipt key (`key`): recording without receipts');
    return { writer, log: undefined, witnesses: undefined, shipping: undefined, grpcUpstream };
  }
  const env = options.env ?? process.env;
  const witnesses = await recordWitnesses(options.witnessUrl ?? [], options.witnessVkey ?? [], receiptsFile, warn);
  // Receipt lines as OTLP log records once durable in the file (docs/design.md §6).
  const shipping = await openReceiptShipping(options.otlpLogs, env, warn);
  // Set up as src/replay/derive-receipts.ts derives it, so a strict replay gives the same bytes.
  const openLog: OpenLog = (path, series, header) =>
    ReceiptLogWriter.open(path, {
      keyring,
      recording: header.id,
      createdAt: header.createdAt,
      tool: TOOL_NAME,
      clock: systemClock,
      fsync: settings.fsync,
      checkpointEvery: settings.checkpointEvery,
      ...(options.witness === undefined ? {} : { witness: options.witness }),
      // Checkpoints go to the witnesses once durable, in the background (docs/design.md §6).
      ...(witnesses || shipping
        ? {
            onDurable: (lines) => {
              witnesses?.onDurable(lines);
              shipping?.onDurable(lines);
            },
          }
        : {}),
      series,
      // Its space taken now, while the disk has room: a full disk later is said there (§5).
      stallRecord: stallRecordPath(path),
    });
  const log = await openLog(receiptsFile, files.continuation.link, first.header).catch(async (error: unknown) => {
    await first.close();
    throw error;
  });
  const rotating = new RotatingLog({ first: log, position, keyring, open: openLog });
  return { writer, log: rotating, witnesses, shipping, grpcUpstream };
}
