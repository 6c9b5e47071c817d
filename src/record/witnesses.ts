/**
 * @module record/witnesses
 * Witnesses (docs/design.md §6, "Witnesses"): verifier keys as given (a witness's verifier key
 * `name+hash+base64(0x04 ‖ key)`, or a file holding one), and for a recorder the `witnessUrl` /
 * `witnessVkey` pairs that start a
 * {@link WitnessSubmitter} writing the cosignature file beside the receipt log.
 */
import { readFile } from 'node:fs/promises';
import { errorMessage } from '../errors.js';
import { CosignatureFile, cosignaturesPathFor } from '../receipts/cosignature-file.js';
import type { SealedLine } from '../receipts/chain.js';
import { WitnessSubmitter } from '../receipts/witness-submitter.js';
import { redactUrl } from '../recording/redaction.js';
import { parseCosignerKey } from '../tlog/cosignature.js';
import type { NoteVerifier } from '../tlog/note.js';
import { httpWitnessPost } from '../tlog/witness-http.js';
import { RecorderOptionError } from './option-error.js';
import type { RecorderWarn } from './warnings.js';

/** Witness keys from `witnessVkey` values: a key itself, or a file that holds one. */
export async function witnessKeys(values: readonly string[]): Promise<NoteVerifier[]> {
  const keys: NoteVerifier[] = [];
  for (const given of values) {
    let text = given;
    if (!/^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(given.trim())) {
      try {
        text = await readFile(given, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new RecorderOptionError('witnessVkey', `${given}: neither a verifier key nor a readable file (${code})`);
      }
    }
    try {
      keys.push(parseCosignerKey(text));
    } catch (error) {
      throw new RecorderOptionError('witnessVkey', errorMessage(error));
    }
  }
  return keys;
}

/** What a recorder runs for its witnesses. */
export interface RecordWitnesses {
  /** The cosignature file beside the log. */
  path: string;
  onDurable(lines: readonly SealedLine[]): void;
  /** Waits for the latest checkpoint's answers (a few tries each), then closes the cosignature file. */
  close(): Promise<void>;
}

/**
 * A recorder's witnesses, or undefined when none is named. Each `witnessUrl` pairs with the
 * `witnessVkey` in the same position; a URL must be http(s).
 */
export async function recordWitnesses(
  urls: readonly string[],
  vkeys: readonly string[],
  receiptsFile: string,
  warn: RecorderWarn,
): Promise<RecordWitnesses | undefined> {
  if (urls.length === 0 && vkeys.length === 0) return undefined;
  if (urls.length !== vkeys.length)
    throw new RecorderOptionError(
      ['witnessUrl', 'witnessVkey'],
      `come in pairs: ${urls.length} URLs, ${vkeys.length} keys`,
    );
  for (const url of urls) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
      throw new RecorderOptionError('witnessUrl', `${JSON.stringify(redactUrl(url))} is not an http(s) URL`);
  }
  const keys = await witnessKeys(vkeys);
  const file = new CosignatureFile(cosignaturesPathFor(receiptsFile));
  const submitter = new WitnessSubmitter({
    targets: urls.map((url, i) => ({ url, witness: keys[i]! })),
    post: httpWitnessPost(),
    timers: {
      setTimeout: (run, ms) => setTimeout(run, ms).unref(),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    },
    store: (record) => file.append(record),
    say: warn,
  });
  return {
    path: file.path,
    onDurable: (lines) => submitter.onDurable(lines),
    close: async () => {
      await submitter.close();
      await file.close().catch((error: unknown) => {
        warn(`${file.path}: ${errorMessage(error)}`);
      });
    },
  };
}
