import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring, readKeyFile } from '../../src/receipts/keys.js';
import { LineSplitter } from '../../src/receipts/log-reader.js';
import type { Checkpoint } from '../../src/receipts/types.js';
import { ReceiptLogVerifier, type VerifyResult, verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { CREATED_AT, buildLogLines, fixedKey, resumptionDraftFor, suspensionDraftFor, taskFor } from './fixtures.js';

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

type LogObject = Record<string, unknown> & { type: string };

/**
 * What a forger without any key can do: edit or drop parsed lines (`edit` returns the lines that
 * replace one), then recompute `seq`, `prev`, checkpoint `root` and `size`, and the `suspension`
 * each resumption names, so that the chain is whole again and only signatures can tell.
 */
function rechain(source: readonly string[], edit: (line: LogObject, index: number) => LogObject[]): string[] {
  const out: string[] = [];
  const renamed = new Map<string, string>();
  let seq = 0;
  source.forEach((text, index) => {
    const originalHash = sha256Prefixed(text);
    for (const line of edit(JSON.parse(text) as LogObject, index)) {
      const previous = out.length > 0 ? sha256Prefixed(out[out.length - 1] as string) : null;
      if (line.type === 'SuspensionReceipt' || line.type === 'ResumptionReceipt') {
        line.seq = ++seq;
        line.prev = previous;
        if (line.type === 'ResumptionReceipt')
          line.suspension = renamed.get(line.suspension as string) ?? line.suspension;
      }
      if (line.type === 'Checkpoint') {
        line.root = previous;
        line.size = seq;
      }
      out.push(canonicalJson(line as never));
      if (line.type === 'SuspensionReceipt') renamed.set(originalHash, sha256Prefixed(out[out.length - 1] as string));
    }
  });
  return out;
}

function joined(ls: string[]): string {
  return ls.map((l) => `${l}\n`).join('');
}

describe('tamper matrix over a log of 50 receipts', () => {
  it('verifies the untouched log', () => {
    // Five intermediate checkpoints, the last at 50 receipts, then the closing one.
    expect(lines.length).toBe(1 + 50 + 5 + 1);
    const result = verify(bytes);
    expect(result).toMatchObject({ ok: true, lines: 57, receipts: 50, checkpoints: 6, closed: true, kids: ['key-a'] });
  });

  it('detects every single-byte change on the line that holds the byte', () => {
    // Each line's prefix is verified once; every mutation of the line is checked on a fork of
    // that state, so thousands of cases run in seconds. A sample is re-run from scratch below.
    // The rest of the log is split as the verifier reads it, as `verify` streams a file: this line
    // and the next (a changed newline joins them) first, the remainder only if the verifier goes on.
    const misses: string[] = [];
    let cases = 0;
    let offset = 0;
    const prefix = new ReceiptLogVerifier({ keyring });
    lines.forEach((line, k) => {
      const suffix = Buffer.from(bytes.subarray(offset));
      const lineBytes = Buffer.byteLength(line) + 1;
      const twoLines = lineBytes + (k + 1 < lines.length ? Buffer.byteLength(lines[k + 1] as string) + 1 : 0);
      for (let i = 0; i < lineBytes; i++) {
        for (const changed of mutationsOf(suffix[i] as number)) {
          const original = suffix[i] as number;
          suffix[i] = changed;
          const verifier = prefix.fork();
          const splitter = new LineSplitter(undefined, k);
          let reading = true;
          for (const chunk of [suffix.subarray(0, twoLines), suffix.subarray(twoLines)]) {
            for (const raw of splitter.push(chunk)) if (!(reading = verifier.push(raw))) break;
            if (!reading) break;
          }
          const last = reading ? splitter.end() : undefined;
          if (last) verifier.push(last);
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
      expect(result.ok, `delete line ${k + 1}`).toBe(false);
      expect(result.firstError?.line, `delete line ${k + 1}`).toBe(k + 1);
      // Deleting the closing checkpoint leaves a valid prefix that no checkpoint closes.
      if (k === lines.length - 1) expect(result.firstError?.reason).toBe('not_closed');
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
    // Cutting only the closing checkpoint loses no receipt: the anchor's root is the line before it.
    expect(verifyReceiptLogBytes(joined(lines.slice(0, -1)), { keyring, anchor }).ok).toBe(true);
    // Cut before the intermediate checkpoint at 50: as many receipts, but not the anchor's head.
    expect(verifyReceiptLogBytes(joined(lines.slice(0, -2)), { keyring, anchor }).firstError).toMatchObject({
      line: lines.length - 2,
      reason: 'checkpoint_mismatch',
    });
    for (const keep of [lines.length - 3, lines.length - 4, 20, 1]) {
      const cut = joined(lines.slice(0, keep));
      expect(verify(cut).firstError, `${keep} lines without the anchor`).toMatchObject({
        line: keep + 1,
        reason: 'not_closed',
      });
      const open = verifyReceiptLogBytes(cut, { keyring, allowOpen: true });
      expect(open.ok).toBe(true);
      expect(open.vouched).toBeLessThanOrEqual(open.receipts);
      const result = verifyReceiptLogBytes(cut, { keyring, anchor });
      expect(result.firstError, `${keep} lines`).toMatchObject({ line: keep + 1, reason: 'truncated' });
    }
  });

  it('refuses a byte order mark put in front of any line, at that line', () => {
    for (let i = 0; i < lines.length; i++) {
      const marked = lines.map((l, k) => (k === i ? `\uFEFF${l}` : l));
      expect(verify(joined(marked)).firstError, `line ${i + 1}`).toMatchObject({ line: i + 1 });
    }
  });

  it('names the line whose conditions a forger nested 100,000 levels deep, canonical or not', () => {
    const at = lines.findIndex((l) => l.includes('"conditions":{'));
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const canonical = lines[at]!.replace(/"conditions":\{.*?\}\},/, `"conditions":${deep},`);
    const spaced = lines[at]!.replace(/"conditions":\{.*?\}\},/, `"conditions": ${deep},`);
    expect(canonical).not.toBe(lines[at]);
    for (const [forged, reason] of [
      [canonical, 'bad_signature'],
      [spaced, 'malformed_line'],
    ] as const) {
      const edited = lines.map((l, k) => (k === at ? forged : l));
      expect(verify(joined(edited)).firstError).toMatchObject({ line: at + 1, reason });
    }
  });

  it('reports a torn last line distinctly from tampering', () => {
    const torn = `${joined(lines.slice(0, 30))}${(lines[30] as string).slice(0, 40)}`;
    expect(verify(torn).firstError).toMatchObject({ line: 31, reason: 'torn_tail' });
    expect(verifyReceiptLogBytes(torn, { keyring, allowTornTail: true }).firstError).toMatchObject({
      line: 31,
      reason: 'not_closed',
    });
    expect(verifyReceiptLogBytes(torn, { keyring, allowTornTail: true, allowOpen: true })).toMatchObject({
      ok: true,
      tornTail: 31,
      receipts: 27,
      vouched: 20,
      closed: false,
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
    const forged = rechain(lines, (line) => {
      if (line.type === 'ReceiptLog') line.checkpoint = { alg: 'hmac-sha256', kid: 'key-a' };
      if (line.type === 'SuspensionReceipt' || line.type === 'ResumptionReceipt') line.principal = 'jwt:sub=mallory';
      if (line.type === 'Checkpoint') line.sig = { alg: 'hmac-sha256', kid: 'key-a', value: 'AAAA' };
      return [line];
    });
    const result = verifyReceiptLogBytes(joined(forged), { keyring: publicOnly });
    expect(result.ok).toBe(false);
    const firstCheckpoint = forged.findIndex((l) => l.includes('"type":"Checkpoint"')) + 1;
    expect(result.firstError?.line).toBe(firstCheckpoint);
    expect(result.firstError?.message).toMatch(/cannot be checked/);
  });
});

describe('keyless forgeries, re-chained so that only signatures and checkpoints can tell', () => {
  const publicFile = fixedKey('key-a').publicKeyFile();
  if (!publicFile) throw new Error('the fixture key has an Ed25519 pair');
  const publicOnly = new Keyring([readKeyFile(publicFile, 'public key')]);
  const other = buildLogLines({ count: 12, keyring, checkpointEvery: 0 });
  const firstCheckpoint = lines.findIndex((l) => l.includes('"type":"Checkpoint"')) + 1;
  const suspensionAt = (n: number): number => lines.findIndex((l, i) => i >= n && l.includes('"SuspensionReceipt"'));

  const forgeries: Record<string, () => string[]> = {
    'principals rewritten': () =>
      rechain(lines, (line) => {
        if (line.type === 'SuspensionReceipt') line.principal = 'jwt:sub=mallory';
        return [line];
      }),
    'two receipts swapped': () => {
      const a = suspensionAt(1);
      const b = suspensionAt(a + 1);
      const swapped = [...lines];
      swapped[a] = lines[b] as string;
      swapped[b] = lines[a] as string;
      return rechain(swapped, (line) => [line]);
    },
    'every checkpoint dropped': () => rechain(lines, (line) => (line.type === 'Checkpoint' ? [] : [line])),
    'checkpoints forged as HMAC': () =>
      rechain(lines, (line) => {
        if (line.type === 'ReceiptLog') line.checkpoint = { alg: 'hmac-sha256', kid: 'key-a' };
        if (line.type === 'Checkpoint') line.sig = { alg: 'hmac-sha256', kid: 'key-a', value: 'AAAA' };
        return [line];
      }),
    'a receipt copied from another log signed by the same key': () =>
      rechain(lines, (line, index) => (index === 3 ? [line, JSON.parse(other[2] as string) as LogObject] : [line])),
  };

  for (const [name, forge] of Object.entries(forgeries)) {
    it(`refuses ${name}, with the public key alone and with the HMAC key, naming a line`, () => {
      const forged = forge();
      for (const ring of [publicOnly, keyring]) {
        const result = verifyReceiptLogBytes(joined(forged), { keyring: ring });
        expect(result.ok, `${name} (${ring.hasHmac ? 'HMAC' : 'public'} key)`).toBe(false);
        expect(result.firstError?.line).toBeGreaterThan(0);
        if (ring.hasHmac) expect(result.firstError?.line).toBeLessThanOrEqual(firstCheckpoint);
      }
      // Even told to accept an open end, the public key vouches for no forged receipt.
      const open = verifyReceiptLogBytes(joined(forged), { keyring: publicOnly, allowOpen: true });
      if (open.ok) expect(open.vouched).toBe(0);
    });
  }
});

describe('a resumption names an open suspension of its own task in the same log', () => {
  const newChain = (): ReceiptChain =>
    new ReceiptChain({ keyring, checkpointEvery: 0, recording: 'rec', createdAt: CREATED_AT, tool: 't' });
  const close = (chain: ReceiptChain, texts: string[]): string => {
    texts.push((chain.close() as { text: string }).text);
    return joined(texts);
  };

  it('accepts rejected attempts after the close, and refuses a second close', () => {
    const chain = newChain();
    const texts = [chain.header.text];
    const s = chain.sealSuspension(suspensionDraftFor(0)).receipt;
    texts.push(s.text);
    texts.push(chain.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(0)), s.hash).receipt.text);
    texts.push(chain.sealResumption(resumptionDraftFor(2, 'rejected', taskFor(0)), s.hash).receipt.text);
    const good = close(chain, texts);
    expect(verify(good)).toMatchObject({ ok: true, receipts: 3 });
    const again = newChain();
    const twice = [again.header.text];
    const s2 = again.sealSuspension(suspensionDraftFor(0)).receipt;
    twice.push(s2.text);
    twice.push(again.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(0)), s2.hash).receipt.text);
    twice.push(again.sealResumption(resumptionDraftFor(2, 'canceled', taskFor(0)), s2.hash).receipt.text);
    expect(verify(close(again, twice)).firstError).toMatchObject({ line: 4, reason: 'unknown_suspension' });
  });

  it('refuses, even when correctly signed, a suspension hash this log does not hold or of another task', () => {
    const chain = newChain();
    const texts = [chain.header.text];
    const s = chain.sealSuspension(suspensionDraftFor(0)).receipt;
    texts.push(s.text);
    texts.push(
      chain.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(0)), `sha256:${'0'.repeat(64)}`).receipt.text,
    );
    const result = verify(close(chain, texts));
    expect(result.firstError).toMatchObject({ line: 3, reason: 'unknown_suspension' });
    expect(result.firstError?.message).toMatch(/no open SuspensionReceipt earlier in this log/);
    const wrongTask = newChain();
    const w = [wrongTask.header.text];
    const ws = wrongTask.sealSuspension(suspensionDraftFor(0)).receipt;
    w.push(ws.text);
    w.push(wrongTask.sealResumption(resumptionDraftFor(1, 'resumed', taskFor(1)), ws.hash).receipt.text);
    expect(verify(close(wrongTask, w)).firstError?.message).toMatch(
      /is for task task-1, but the suspension it names is of task task-0/,
    );
  });
});
