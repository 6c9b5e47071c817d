/**
 * @module cli/commands/record
 * `a2a-replay record --upstream URL --out FILE`: a recording reverse proxy in front of a peer
 * (DESIGN §5, §9). Prints `listening on http://HOST:PORT` first; on SIGINT or SIGTERM it stops
 * accepting, lets exchanges in flight finish (up to `--grace-ms`), flushes the recording and
 * exits 0.
 *
 * Receipts: with a key (`--key FILE` or `A2A_REPLAY_KEY_FILE`) every entry also goes through the
 * ObservationPipeline (the same PauseObserver replay uses) and the receipts are sealed by a
 * ReceiptChain into `--receipts` (default `X.receipts.jsonl` beside `X.jsonl`), line by line as
 * they are made, with the closing checkpoint written on shutdown. Without a key only the
 * recording is written and stderr says so.
 */
import { dirname, basename, join } from 'node:path';
import type { Command } from 'commander';
import {
  A2aReplayError,
  CounterIdSource,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_REDACTED_HEADERS,
  ExchangeRecorder,
  Keyring,
  type LineSink,
  ObservationPipeline,
  ReceiptChain,
  type RecordingEntry,
  RecordingWriter,
  TOOL_NAME,
  fileLineSink,
  parseJsonText,
  parsePrincipalSource,
  readKeyFile,
  randomIdSource,
  startRecordingProxy,
  systemClock,
} from '../../src/index.js';
import { CliExit, EXIT, readInput } from '../io.js';

interface RecordCommandOptions {
  upstream: string;
  out: string;
  listen: string;
  receipts?: string;
  key?: string;
  principalFrom: string;
  redact?: string[];
  maxBodyBytes: string;
  graceMs: string;
}

/** `X.jsonl` pairs with `X.receipts.jsonl` (DESIGN §10). */
export function receiptsPathFor(recording: string): string {
  const name = basename(recording);
  const stem = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  return join(dirname(recording), `${stem}.receipts.jsonl`);
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new CliExit(EXIT.usage, `--listen: expected HOST:PORT or PORT; got ${JSON.stringify(text)}`);
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { host, port };
}

function integer(text: string, name: string, min: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new CliExit(EXIT.usage, `--${name}: expected an integer of at least ${min}; got ${JSON.stringify(text)}`);
  }
  return n;
}

async function loadKeyring(file: string): Promise<Keyring> {
  const { text, source } = await readInput(file);
  try {
    return new Keyring([readKeyFile(parseJsonText(text, source), source)]);
  } catch (error) {
    throw new CliExit(EXIT.usage, error instanceof Error ? error.message : String(error));
  }
}

/** Lines to a sink in order, never awaited by the caller; the first failure goes to `onError`. */
function queuedLines(sink: LineSink, onError: (error: unknown) => void): { put(text: string): void; close(): Promise<void> } {
  let queue = Promise.resolve();
  let failed = false;
  return {
    put(text) {
      queue = queue.then(async () => {
        if (failed) return;
        try {
          await sink.write(`${text}\n`);
        } catch (error) {
          failed = true;
          onError(error);
        }
      });
    },
    async close() {
      await queue;
      await sink.close().catch(onError);
    },
  };
}

/** Feeds entries to the observation pipeline and writes the receipts it derives. */
function receiptLog(file: string, keyring: Keyring, recording: RecordingWriter, onError: (error: unknown) => void) {
  const chain = new ReceiptChain({ keyring, recording: recording.header.id, createdAt: recording.header.createdAt, tool: TOOL_NAME });
  const lines = queuedLines(fileLineSink(file), onError);
  lines.put(chain.header.text);
  const pipeline = new ObservationPipeline({
    recordingId: recording.header.id,
    receipts: {
      appendSuspension: async (draft) => {
        const sealed = chain.sealSuspension(draft);
        lines.put(sealed.receipt.text);
        if (sealed.checkpoint) lines.put(sealed.checkpoint.text);
        return { hash: sealed.receipt.hash };
      },
      appendResumption: async (draft, suspensionHash) => {
        const sealed = chain.sealResumption(draft, suspensionHash);
        lines.put(sealed.receipt.text);
        if (sealed.checkpoint) lines.put(sealed.checkpoint.text);
        return { hash: sealed.receipt.hash };
      },
    },
    onSinkError: (error) => onError(error),
  });
  let lastAt = recording.header.createdAt;
  return {
    push(entry: RecordingEntry): void {
      lastAt = entry.at;
      void pipeline.push(entry);
    },
    async close(): Promise<void> {
      await pipeline.finish(lastAt);
      await pipeline.idle();
      const closing = chain.close();
      if (closing) lines.put(closing.text);
      await lines.close();
    },
  };
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description('record the A2A traffic to a peer through a reverse proxy')
    .requiredOption('--upstream <url>', 'the peer to forward to')
    .requiredOption('--out <file>', 'recording to write (JSONL)')
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:0')
    .option('--receipts <file>', 'receipt log to write (default: X.receipts.jsonl beside X.jsonl)')
    .option('--key <file>', 'receipt signing key file (default: $A2A_REPLAY_KEY_FILE)')
    .option('--principal-from <source>', 'who sent a request: jwt-sub | header:NAME', 'jwt-sub')
    .option('--redact <header...>', `extra header names to redact (always: ${DEFAULT_REDACTED_HEADERS.join(', ')})`)
    .option('--max-body-bytes <n>', 'refuse request bodies above this size', String(DEFAULT_MAX_BODY_BYTES))
    .option('--grace-ms <n>', 'on shutdown, how long exchanges in flight may take to finish', '2000')
    .action(async (options: RecordCommandOptions) => {
      const listen = parseListen(options.listen);
      let principal;
      try {
        principal = parsePrincipalSource(options.principalFrom);
      } catch (error) {
        throw new CliExit(EXIT.usage, `--principal-from: ${(error as Error).message}`);
      }
      const maxBodyBytes = integer(options.maxBodyBytes, 'max-body-bytes', 1);
      const graceMs = integer(options.graceMs, 'grace-ms', 0);
      try {
        new URL(options.upstream);
      } catch {
        throw new CliExit(EXIT.usage, `--upstream: ${JSON.stringify(options.upstream)} is not a URL`);
      }

      const reported = new Set<string>();
      const reportOnce = (what: string) => (error: unknown): void => {
        if (reported.has(what)) return;
        reported.add(what);
        process.stderr.write(`a2a-replay: ${what} failed, the proxy keeps forwarding: ${describe(error)}\n`);
      };
      const writer = new RecordingWriter({
        sink: fileLineSink(options.out),
        clock: systemClock,
        ids: randomIdSource,
        target: options.upstream,
        onError: reportOnce(`writing ${options.out}`),
      });
      await writer.flush();
      if (writer.failed) throw new CliExit(EXIT.usage, `${options.out}: cannot write the recording`);

      const keyFile = options.key ?? process.env.A2A_REPLAY_KEY_FILE;
      let receipts: ReturnType<typeof receiptLog> | undefined;
      if (keyFile === undefined || keyFile === '') {
        process.stderr.write('a2a-replay: no receipt key (--key FILE or A2A_REPLAY_KEY_FILE): recording without receipts\n');
      } else {
        const file = options.receipts ?? receiptsPathFor(options.out);
        receipts = receiptLog(file, await loadKeyring(keyFile), writer, reportOnce(`writing ${file}`));
      }

      const recorder = new ExchangeRecorder({
        writer,
        ids: new CounterIdSource(writer.header.id),
        principal,
        redact: [...DEFAULT_REDACTED_HEADERS, ...(options.redact ?? []).map((n) => n.toLowerCase())],
        maxBodyBytes,
        ...(receipts ? { onEntry: (entry: RecordingEntry) => receipts.push(entry) } : {}),
        onError: reportOnce('recording'),
      });
      const proxy = await startRecordingProxy({
        upstream: options.upstream,
        recorder,
        host: listen.host,
        port: listen.port,
        maxBodyBytes,
      }).catch((error: unknown) => {
        if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
        throw error;
      });
      process.stdout.write(`listening on ${proxy.url}\n`);

      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await proxy.close({ graceMs });
      await writer.close();
      await receipts?.close();
    });
}
