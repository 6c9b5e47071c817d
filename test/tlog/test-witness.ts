/**
 * A witness as C2SP tlog-witness describes it, written for tests from the spec and not from the
 * client in src/: HTTP on 127.0.0.1, `POST /add-checkpoint` (`old <size>`, consistency proof
 * lines, a blank line, the signed checkpoint). It checks the log's signature with the log keys it
 * trusts (404 for an origin it does not know, 403 when no trusted key signed), the old size
 * against the last size it cosigned for the origin (409 with `text/x.tlog.size` otherwise), the
 * consistency proof (422), equal roots at equal sizes (409), then records the checkpoint and
 * answers a timestamped Ed25519 cosignature/v1 line. Note parsing, key IDs and the cosigned
 * message are written here from the specs; the RFC 6962 proof check is src/tlog/merkle.ts's,
 * which the published vectors hold (test/tlog/tlog-vectors.test.ts).
 */
import { createHash, generateKeyPairSync, sign, verify, type KeyObject, createPublicKey } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyConsistency } from '../../src/tlog/merkle.js';

/** A log key the witness trusts: checkpoints whose origin starts with `originPrefix`, signed by `name`. */
export interface TrustedLog {
  originPrefix: string;
  name: string;
  /** The 32-byte Ed25519 public key. */
  publicKey: Buffer;
}

export interface TestWitness {
  url: string;
  name: string;
  /** `name+hash+base64(0x04 ‖ public key)`. */
  vkey: string;
  /** Latest cosigned size and root per origin. */
  state: Map<string, { size: number; root: Buffer }>;
  /** Every request's status, in order. */
  answers: { old: number; size: number | null; status: number }[];
  close(): Promise<void>;
}

function keyId(name: string, type: number, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(name, 'utf8'), Buffer.from([0x0a, type]), publicKey]))
    .digest()
    .subarray(0, 4);
}

function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(-32);
}

function ed25519PublicKeyObject(raw: Buffer): KeyObject {
  return createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]),
    format: 'der',
    type: 'spki',
  });
}

interface Answer {
  status: number;
  type?: string;
  body: string;
}

function text(status: number, body: string): Answer {
  return { status, body: `${body}\n` };
}

/** Handles one add-checkpoint body as the spec orders its checks. */
function addCheckpoint(
  body: string,
  witness: { name: string; privateKey: KeyObject; publicKey: Buffer; now: () => number },
  trusted: readonly TrustedLog[],
  state: TestWitness['state'],
): Answer & { old: number; size: number | null } {
  const blank = body.indexOf('\n\n');
  const head = blank < 0 ? [] : body.slice(0, blank).split('\n');
  const oldMatch = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? '');
  const proof = head.slice(1).map((line) => Buffer.from(line, 'base64'));
  if (!oldMatch || proof.length > 63 || proof.some((p, i) => p.length !== 32 || p.toString('base64') !== head[i + 1]))
    return { ...text(400, 'malformed request'), old: -1, size: null };
  const old = Number(oldMatch[1]);
  const note = body.slice(blank + 2);
  const split = note.lastIndexOf('\n\n');
  const noteText = split < 0 ? '' : note.slice(0, split + 1);
  const lines = noteText.split('\n');
  const [origin, sizeText, rootText] = lines;
  if (split < 0 || !note.endsWith('\n') || lines.length < 4 || !/^(0|[1-9][0-9]*)$/.test(sizeText ?? ''))
    return { ...text(400, 'malformed checkpoint'), old, size: null };
  const size = Number(sizeText);
  const root = Buffer.from(rootText ?? '', 'base64');
  const logs = trusted.filter((t) => origin!.startsWith(t.originPrefix));
  if (logs.length === 0) return { ...text(404, 'unknown origin'), old, size };
  const signed = note
    .slice(split + 2, -1)
    .split('\n')
    .some((line) => {
      const m = /^\u2014 (\S+) (\S+)$/.exec(line);
      if (!m) return false;
      const blob = Buffer.from(m[2]!, 'base64');
      return logs.some(
        (log) =>
          log.name === m[1] &&
          blob.subarray(0, 4).equals(keyId(log.name, 0x01, log.publicKey)) &&
          verify(null, Buffer.from(noteText, 'utf8'), ed25519PublicKeyObject(log.publicKey), blob.subarray(4)),
      );
    });
  if (!signed) return { ...text(403, 'no trusted signature'), old, size };
  if (old > size) return { ...text(400, 'old size above the checkpoint size'), old, size };
  const held = state.get(origin!) ?? { size: 0, root: Buffer.alloc(0) };
  if (old !== held.size) return { status: 409, type: 'text/x.tlog.size', body: `${held.size}\n`, old, size };
  if (old === 0 && proof.length > 0) return { ...text(422, 'a proof from size 0 must be empty'), old, size };
  if (old === size) {
    if (!held.root.equals(root)) return { status: 409, type: 'text/x.tlog.size', body: `${held.size}\n`, old, size };
  } else if (old > 0 && !verifyConsistency(old, size, proof, held.root, root)) {
    return { ...text(422, 'the consistency proof does not verify'), old, size };
  }
  // Checked and recorded in one synchronous step: no other request runs in between.
  state.set(origin!, { size, root });
  const time = BigInt(witness.now());
  const message = Buffer.from(`cosignature/v1\ntime ${time}\n${noteText}`, 'utf8');
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(time);
  const blob = Buffer.concat([
    keyId(witness.name, 0x04, witness.publicKey),
    stamp,
    sign(null, message, witness.privateKey),
  ]);
  return { status: 200, body: `\u2014 ${witness.name} ${blob.toString('base64')}\n`, old, size };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a witness named `name` trusting `trusted`; its clock reads `now()` seconds (default a fixed count). */
export async function startTestWitness(
  name: string,
  trusted: readonly TrustedLog[],
  options: { now?: () => number } = {},
): Promise<TestWitness> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  let tick = 1_767_000_000;
  const witness = { name, privateKey, publicKey: raw, now: options.now ?? (() => tick++) };
  const state: TestWitness['state'] = new Map();
  const answers: TestWitness['answers'] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void readBody(request).then((body) => {
      const answer =
        request.method === 'POST' && request.url === '/add-checkpoint'
          ? addCheckpoint(body, witness, trusted, state)
          : { ...text(404, 'not found'), old: -1, size: null };
      answers.push({ old: answer.old, size: answer.size, status: answer.status });
      response.writeHead(answer.status, { 'content-type': answer.type ?? 'text/plain; charset=utf-8' });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const encoded = Buffer.concat([Buffer.from([0x04]), raw]).toString('base64');
  const vkey = `${name}+${keyId(name, 0x04, raw).toString('hex')}+${encoded}`;
  return {
    url: `http://127.0.0.1:${port}`,
    name,
    vkey,
    state,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
