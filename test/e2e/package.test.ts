/**
 * The package as users install it: `npm pack`, unpacked into an empty project whose dependencies
 * resolve to this checkout's, then imported, type-checked under `moduleResolution: nodenext` and run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const SUBPATHS = ['receipts', 'intercept', 'replay', 'tracing', 'peer', 'protocol', 'mock'] as const;

describe('the packed package', () => {
  let project = '';

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'a2a-replay-pack-'));
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const [{ filename }] = JSON.parse(out) as [{ filename: string }];
    const installed = join(project, 'node_modules', 'a2a-replay');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(project, filename), '-C', installed, '--strip-components=1']);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const dep of [...Object.keys(manifest.dependencies), '@types/node']) {
      const link = join(project, 'node_modules', dep);
      mkdirSync(join(link, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dep), link, 'dir');
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  }, 120_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('exports at most 45 names from its root', async () => {
    const root = (await import(join(project, 'node_modules/a2a-replay/dist/src/index.js'))) as Record<string, unknown>;
    const runtimeNames = Object.keys(root);
    expect(runtimeNames).toContain('verifyReceiptLog');
    expect(runtimeNames).toContain('startRecordingProxy');
    const source = readFileSync(join(ROOT, 'src/index.ts'), 'utf8');
    // Every name of every `export { … } from` and `export type { … } from` statement of the root.
    const declared = [...source.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    );
    expect(declared.length).toBeGreaterThan(runtimeNames.length - 1);
    expect(declared.length).toBeLessThanOrEqual(45);
  });

  it('type-checks imports of the root and every subpath under nodenext', () => {
    const lines = [
      `import { Keyring, generateReceiptKey, verifyReceiptLog, type VerifyResult } from 'a2a-replay';`,
      `import { ReceiptLogWriter, auditReceiptLog } from 'a2a-replay/receipts';`,
      ...SUBPATHS.map((s, i) => `import * as sub${i} from 'a2a-replay/${s}';`),
      `const key = generateReceiptKey({ kid: 'k' });`,
      `const ring = new Keyring([key]);`,
      `const check = (path: string): Promise<VerifyResult> => verifyReceiptLog(path, { keyring: ring });`,
      `const subs = [${SUBPATHS.map((_, i) => `sub${i}`).join(', ')}];`,
      `export const used = [key.kid, check, ReceiptLogWriter, auditReceiptLog, subs];`,
    ];
    writeFileSync(join(project, 'consumer.ts'), lines.join('\n') + '\n');
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    expect(() => execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' })).not.toThrow();
  });

  it('runs: verifies a golden receipt log with the root API and audits it from the receipts subpath', () => {
    const script = `
      import { Keyring, loadKeyFile, verifyReceiptLog } from 'a2a-replay';
      import { auditReceiptLog } from 'a2a-replay/receipts';
      import { PAUSE_METHODS } from 'a2a-replay/protocol';
      const { key } = await loadKeyFile(process.argv[2]);
      const keyring = new Keyring([key]);
      const result = await verifyReceiptLog(process.argv[3], { keyring });
      const audit = await auditReceiptLog(process.argv[3], { keyring });
      const summary = { ok: result.ok, receipts: result.receipts, rows: audit.rows.length, methods: PAUSE_METHODS };
      console.log(JSON.stringify(summary));
    `;
    writeFileSync(join(project, 'run.mjs'), script);
    const log = join(ROOT, 'golden/wrong-token-then-right/recording.receipts.jsonl');
    const out = execFileSync(process.execPath, [join(project, 'run.mjs'), join(ROOT, 'golden/test-key.json'), log], {
      cwd: project,
      encoding: 'utf8',
    });
    const parsed = JSON.parse(out) as { ok: boolean; receipts: number; rows: number; methods: string[] };
    expect(parsed).toMatchObject({ ok: true, rows: 1 });
    expect(parsed.receipts).toBeGreaterThanOrEqual(2);
    expect(parsed.methods).toContain('PauseTask');
  });
});
