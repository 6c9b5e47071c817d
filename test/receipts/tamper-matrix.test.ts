import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  Keyring,
  canonicalJson,
  readKeyFile,
  sha256Prefixed,
  ReceiptChain,
  ReceiptLogVerifier,
  type VerifyResult,
  splitLogBytes,
  verifyReceiptLogBytes,
} from '../../src/internal.js';
import { CREATED_AT, buildLogLines, fixedKey, suspensionDraftFor } from './fixtures.js';

const keyring = new Keyring([fixedKey('key-a')]);
const lines = buildLogLines({ count: 50, keyring, checkpointEvery: 10 });
const text = lines.map((l) => `${l}\n`).join('');
const bytes = Buffer.from(text, 'utf8');

/** Line number (1-based) of byte offset `i`; a newline belongs to the line it ends. */
const lineOfByte: number[] = [];
lines.forEach((l, i) => {
  for (let k = 0; k <= Buffer.byteLength(l); k++) lineOfByte.push(i + 1);
});

/** Two changes per byte: its lowest bit flipped, and a replacement from another character class. */
function mutationsOf(byte: number): number[] {
  return [byte ^ 0x01, byte === 0x41 ? 0x30 : 0x41];
}

function verify(data: Uint8Array | string): VerifyResult {
  return verifyReceiptLogBytes(data, { keyring });
}

function joined(ls: string[]): string {
  return ls.map((l) => `${l}\n`).join('');
}

describe('tamper matrix over a log of 50 receipts', () => {
  it('verifies the untouched log', () => {
    expect(lines.length).toBe(1 + 50 + 5);
    const result = verify(bytes);
    expect(result).toMatchObject({ ok: true, lines: 56, receipts: 50, checkpoints: 5, closed: true, kids: ['key-a'] });
  });

  it('detects every single-byte change on the line that holds the byte', () => {
    // Each line's prefix is verified once; every mutation of the line is checked on a fork of
    // that state, so thousands of cases run in seconds. A sample is re-run from scratch below.
    const misses: string[] = [];
    let cases = 0;
    let offset = 0;
    const prefix = new ReceiptLogVerifier({ keyring });
    lines.forEach((line, k) => {
      const suffix = Buffer.from(bytes.subarray(offset));
      const lineBytes = Buffer.byteLength(line) + 1;
      for (let i = 0; i < lineBytes; i++) {
        for (const changed of mutationsOf(suffix[i] as number)) {
          const original = suffix[i] as number;
          suffix[i] = changed;
          const verifier = prefix.fork();
          for (const raw of splitLogBytes(suffix)) if (!verifier.push({ ...raw, number: raw.number + k })) break;
          const result = verifier.finish();
          suffix[i] = original;
          cases++;
          if (result.ok || result.firstError?.line !== k + 1) {
            misses.push(
              `line ${k + 1} byte ${i} ${original}->${changed}: ${JSON.stringify(result.firstError ?? 'verified')}`,
            );
          }
        }
      }
      prefix.push({ number: k + 1, text: line, problem: null, complete: true });
      offset += lineBytes;
    });
    expect({ misses: misses.length, first: misses.slice(0, 5) }).toEqual({ misses: 0, first: [] });
    expect(cases).toBeGreaterThan(2 * 40_000);
  });

  it('gives the same verdict from scratch as on a fork, for a sample of byte changes', () => {
    const copy = Buffer.from(bytes);
    for (let i = 0; i < bytes.length; i += 211) {
      const original = copy[i] as number;
      copy[i] = original ^ 0x01;
      const result = verify(copy);
      copy[i] = original;
      expect(result.firstError?.line, `byte ${i}`).toBe(lineOfByte[i]);
    }
  });

  it('detects every deleted line at its position', () => {
    for (let k = 0; k < lines.length; k++) {
      const result = verify(joined(lines.filter((_, i) => i !== k)));
      // Deleting the closing checkpoint leaves a valid prefix: only an outside checkpoint can tell.
      if (k === lines.length - 1) {
        expect(result.ok, `delete line ${k + 1}`).toBe(true);
        expect(result.closed).toBe(false);
        continue;
      }
      expect(result.ok, `delete line ${k + 1}`).toBe(false);
      expect(result.firstError?.line, `delete line ${k + 1}`).toBe(k + 1);
    }
  });

  it('detects every swap of two lines at the first swapped position', () => {
    const prefix = new ReceiptLogVerifier({ keyring });
    for (let a = 0; a < lines.length; a++) {
      for (let b = a + 1; b < lines.length; b++) {
        const swapped = [...lines];
        swapped[a] = lines[b] as string;
        swapped[b] = lines[a] as string;
        const verifier = prefix.fork();
        for (let i = a; i < swapped.length; i++) {
          if (!verifier.push({ number: i + 1, text: swapped[i] as string, problem: null, complete: true })) break;
        }
        const result = verifier.finish();
        expect(result.ok, `swap ${a + 1} and ${b + 1}`).toBe(false);
        expect(result.firstError?.line, `swap ${a + 1} and ${b + 1}`).toBe(a + 1);
      }
      prefix.push({ number: a + 1, text: lines[a] as string, problem: null, complete: true });
    }
    // And a few from scratch through the byte-level entry point.
    for (const [a, b] of [
      [0, 1],
      [1, 2],
      [10, 11],
      [30, 55],
    ] as const) {
      const swapped = [...lines];
      swapped[a] = lines[b] as string;
      swapped[b] = lines[a] as string;
      expect(verify(joined(swapped)).firstError?.line).toBe(a + 1);
    }
  });

  it('detects a truncated tail with a checkpoint kept outside the log', () => {
    const anchor = JSON.parse(lines.at(-1) as string) as Checkpoint;
    expect(verifyReceiptLogBytes(bytes, { keyring, anchor })).toMatchObject({ ok: true, anchored: true });
    // Cutting only the closing checkpoint loses no receipt: the anchor's root is the last receipt's hash.
    expect(verifyReceiptLogBytes(joined(lines.slice(0, -1)), { keyring, anchor }).ok).toBe(true);
    for (const keep of [lines.length - 2, lines.length - 3, 20, 1]) {
      const cut = joined(lines.slice(0, keep));
      expect(verify(cut).ok, `${keep} lines without the anchor`).toBe(true);
      const result = verifyReceiptLogBytes(cut, { keyring, anchor });
      expect(result.firstError, `${keep} lines`).toMatchObject({ line: keep + 1, reason: 'truncated' });
    }
  });

  it('reports a torn last line distinctly from tampering', () => {
    const torn = `${joined(lines.slice(0, 30))}${(lines[30] as string).slice(0, 40)}`;
    expect(verify(torn).firstError).toMatchObject({ line: 31, reason: 'torn_tail' });
    expect(verifyReceiptLogBytes(torn, { keyring, allowTornTail: true })).toMatchObject({
      ok: true,
      tornTail: 31,
      receipts: 27,
    });
  });

  it('names a line forged with another key, under an undeclared kid or the same kid', () => {
    for (const forger of [fixedKey('key-x'), fixedKey('key-a', 'other-secret')]) {
      const forged = new ReceiptChain({
        keyring: new Keyring([forger]),
        checkpointEvery: 0,
        recording: 'rec-test',
        createdAt: CREATED_AT,
        tool: 'a2a-replay@test',
      });
      const line = JSON.parse(lines[5] as string) as { seq: number; prev: string };
      // Forge a receipt at line 6 that continues the real chain.
      const chainState = forged as unknown as { sealSuspension: ReceiptChain['sealSuspension'] };
      const sealed = chainState.sealSuspension(suspensionDraftFor(999));
      const fake = JSON.parse(sealed.receipt.text) as Record<string, unknown>;
      fake.seq = line.seq;
      fake.prev = line.prev;
      const replaced = [...lines];
      replaced[5] = JSON.stringify(Object.fromEntries(Object.entries(fake).sort(([a], [b]) => (a < b ? -1 : 1))));
      const result = verify(joined(replaced));
      expect(result.firstError?.line).toBe(6);
      expect(result.firstError?.reason).toBe(forger.kid === 'key-x' ? 'unknown_kid' : 'bad_signature');
    }
  });

  it('refuses, with the public key alone, a keyless forgery whose checkpoints claim an HMAC it cannot check', () => {
    const publicFile = fixedKey('key-a').publicKeyFile();
    if (!publicFile) throw new Error('the fixture key has an Ed25519 pair');
    const publicOnly = new Keyring([readKeyFile(publicFile, 'public key')]);
    expect(verifyReceiptLogBytes(text, { keyring: publicOnly }).ok).toBe(true);

    // Without any secret: principals rewritten, the pin moved to HMAC, checkpoints with junk MACs,
    // and seq/prev/root recomputed so the chain itself is whole.
    const forged: string[] = [];
    for (const original of lines) {
      const line = JSON.parse(original) as Record<string, unknown> & { type: string; sig?: Record<string, unknown> };
      const previous = forged.length > 0 ? sha256Prefixed(forged[forged.length - 1] as string) : null;
      if (line.type === 'ReceiptLog') line.checkpoint = { alg: 'hmac-sha256', kid: 'key-a' };
      if (line.type === 'SuspensionReceipt' || line.type === 'ResumptionReceipt') {
        line.principal = 'jwt:sub=mallory';
        line.prev = previous;
      }
      if (line.type === 'Checkpoint') {
        line.root = previous;
        line.sig = { alg: 'hmac-sha256', kid: 'key-a', value: 'AAAA' };
      }
      forged.push(canonicalJson(line as never));
    }
    const result = verifyReceiptLogBytes(joined(forged), { keyring: publicOnly });
    expect(result.ok).toBe(false);
    const firstCheckpoint = forged.findIndex((l) => l.includes('"type":"Checkpoint"')) + 1;
    expect(result.firstError?.line).toBe(firstCheckpoint);
    expect(result.firstError?.message).toMatch(/cannot be checked/);
  });
});
