import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import fc from 'fast-check';
import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { loadKeyFile, loadKeyring, writeSecretFile } from '../../src/receipts/key-file.js';
import { Keyring, ReceiptKey, generateReceiptKey, readKeyFile } from '../../src/receipts/keys.js';
import { checkpointSigningInput } from '../../src/receipts/signing.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { CREATED_AT, buildLogLines, fixedKey, suspensionDraftFor } from './fixtures.js';
import { fuzzRuns } from '../helpers/fuzz.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-keys-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('receipt keys', () => {
  const key = fixedKey('key-a');
  const file = key.keyFile();

  it('never shows key material through JSON or inspect', () => {
    for (const shown of [
      JSON.stringify(key),
      inspect(key),
      JSON.stringify(new Keyring([key])),
      inspect(new Keyring([key])),
    ]) {
      expect(shown).not.toContain(file.hmac);
      expect(shown).not.toContain(file.ed25519?.secretKey);
    }
    expect(JSON.parse(JSON.stringify(key))).toEqual({ kid: 'key-a', hmac: true, ed25519: 'pair' });
  });

  it('reads back what it writes, and rejects a damaged file naming the field but not the value', () => {
    expect(readKeyFile(JSON.parse(canonicalJson(file)), 'k.json').keyFile()).toEqual(file);
    const otherPublic = fixedKey('key-a', 'other').keyFile().ed25519?.publicKey as string;
    const cases: [object, RegExp][] = [
      [{ ...file, hmac: 'c2hvcnQ' }, /k\.json: hmac: expected at least 16 bytes/],
      [{ ...file, hmac: `${file.hmac}!` }, /k\.json: hmac: expected base64url/],
      [{ ...file, kid: 'has space' }, /kid: expected/],
      [{ ...file, version: 2 }, /version: expected 1/],
      [{ ...file, ed25519: { ...file.ed25519, publicKey: otherPublic } }, /does not belong to the secret key/],
      [
        // NaCl's secret key form ends in the public key: a different one there is refused too.
        {
          ...file,
          ed25519: {
            ...file.ed25519,
            secretKey: Buffer.concat([
              Buffer.from(file.ed25519?.secretKey as string, 'base64url').subarray(0, 32),
              Buffer.from(otherPublic, 'base64url'),
            ]).toString('base64url'),
          },
        },
        /does not belong to the secret key/,
      ],
    ];
    for (const [value, message] of cases) {
      let error: unknown;
      try {
        readKeyFile(value, 'k.json');
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'KEY_INVALID' });
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(file.hmac.slice(0, 12));
      expect((error as Error).message).not.toContain(file.ed25519?.secretKey.slice(0, 12));
    }
  });

  it('makes from a seed the very pair tweetnacl makes', () => {
    for (let i = 0; i < 20; i++) {
      const seed = createHash('sha256').update(`seed ${i}`).digest();
      const draws = [Buffer.alloc(32, i), seed]; // the HMAC secret, then the seed
      const made = generateReceiptKey({ kid: 'k-seed', random: () => draws.shift()! });
      const pair = nacl.sign.keyPair.fromSeed(seed);
      const ed = made.keyFile().ed25519!;
      expect(ed.publicKey).toBe(Buffer.from(pair.publicKey).toString('base64url'));
      expect(ed.secretKey).toBe(Buffer.from(pair.secretKey).toString('base64url'));
    }
  });

  it('signs checkpoints that tweetnacl verifies with the public key alone', () => {
    const chain = new ReceiptChain({ keyring: new Keyring([key]), recording: null, createdAt: CREATED_AT, tool: 't' });
    chain.sealSuspension(suspensionDraftFor(1));
    const cp = chain.checkpoint().line;
    const { sig, ...body } = cp;
    const publicKey = Buffer.from(key.publicKeyFile()?.ed25519.publicKey as string, 'base64url');
    expect(
      nacl.sign.detached.verify(checkpointSigningInput(body), Buffer.from(sig.value, 'base64url'), publicKey),
    ).toBe(true);
    const secretKey = Buffer.from(file.ed25519?.secretKey as string, 'base64url');
    expect(Buffer.from(nacl.sign.detached(checkpointSigningInput(body), secretKey)).toString('base64url')).toBe(
      sig.value,
    );
  });

  it('verifies chain, sequence and checkpoints with only the public key, and says HMACs went unchecked', () => {
    const lines = buildLogLines({ count: 20, keyring: new Keyring([key]) });
    const publicOnly = new Keyring([readKeyFile(key.publicKeyFile(), 'pub')]);
    const ok = verifyReceiptLogBytes(`${lines.join('\n')}\n`, { keyring: publicOnly });
    expect(ok).toMatchObject({ ok: true, receiptSignatures: 'unchecked', checkpoints: 3 });
    const withoutThird = [...lines.slice(0, 3), ...lines.slice(4)];
    expect(verifyReceiptLogBytes(`${withoutThird.join('\n')}\n`, { keyring: publicOnly }).firstError).toMatchObject({
      line: 4,
      reason: 'sequence_gap',
    });
  });

  it('writes key files with mode 0600, refuses to overwrite, and warns on a secret file others can read', async () => {
    const path = join(dir, 'k.json');
    await writeSecretFile(path, canonicalJson(file));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await expect(writeSecretFile(path, canonicalJson(file))).rejects.toThrow(/already exists/);
    expect((await loadKeyFile(path)).warnings).toEqual([]);
    await writeSecretFile(path, canonicalJson(file), { force: true, mode: 0o644 });
    expect((await loadKeyFile(path)).warnings[0]).toMatch(/readable by group or others \(mode 0644\)/);
    const pub = join(dir, 'k.pub');
    await writeFile(pub, canonicalJson(key.publicKeyFile()), { mode: 0o644 });
    expect((await loadKeyFile(pub)).warnings).toEqual([]);
  });

  it('loads the key file named by A2A_REPLAY_KEY_FILE when no file is given', async () => {
    const path = join(dir, 'env.json');
    await writeSecretFile(path, canonicalJson(file));
    expect((await loadKeyring({ env: { A2A_REPLAY_KEY_FILE: path } })).keyring.kids).toEqual(['key-a']);
    await expect(loadKeyring({ env: {} })).rejects.toThrow(/no key/);
    await writeFile(join(dir, 'bad.json'), `{"hmac":"${file.hmac}",`);
    const error = await loadKeyFile(join(dir, 'bad.json')).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain(file.hmac);
  });
});

describe('ReceiptKey.macOfTexts', () => {
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: fc.constantFrom('a', '\u00e9', '\u20ac', '\ud83d\ude00', '\ud800', '\udc00'), maxLength: 60 }),
    fc.nat(9000).map((n) => '\u20ac'.repeat(n)),
  );

  it('is the createHmac MAC (base64url) of the texts in turn as UTF-8, for keys and texts of any length', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.array(fc.array(text, { maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        (secret, calls) => {
          const key = new ReceiptKey('k-mac', { hmac: secret });
          // Several calls on one key: its scratch buffer grows and is reused.
          for (const texts of calls) {
            // Each text as UTF-8 in turn (a surrogate pair split between two texts is two U+FFFD).
            const hmac = createHmac('sha256', Buffer.from(secret));
            for (const t of texts) hmac.update(t, 'utf8');
            const want = hmac.digest('base64url');
            expect(key.macOfTexts(texts)).toBe(want);
            expect(key.macOf(texts).toString('base64url')).toBe(want);
          }
        },
      ),
      { numRuns: fuzzRuns(300), seed: 11 },
    );
  });

  it('refuses a key without an HMAC secret', () => {
    const pub = new ReceiptKey('k-pub', { ed25519: { publicKey: nacl.sign.keyPair().publicKey } });
    expect(() => pub.macOfTexts(['x'])).toThrow(/has no HMAC secret/);
  });
});
