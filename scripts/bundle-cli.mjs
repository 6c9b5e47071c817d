/**
 * The `a2a-replay` program as `node` starts it (docs/design.md §2, "Start-up"): after tsc has built
 * dist/, dist/cli/main.js (and the verify worker beside it, which `verify --jobs` starts by its
 * path) is bundled with the modules it loads into dist/cli/main.js and shared chunks beside it.
 * Loading about 220 modules one by one cost most of the CLI's start-up; the bundle loads one file
 * per command and the chunks it shares. Each `import()` stays one (a chunk loaded only when a
 * command asks for it), and packages stay imports of node_modules, so a command loads gRPC,
 * protobuf or OpenTelemetry only where it did before (test/architecture/entry-closure.test.ts).
 * The library entries (dist/src) are tsc's output, untouched.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = fileURLToPath(new URL('../dist/cli/', import.meta.url));
for (const name of readdirSync(cli)) if (/^chunk-.*\.js(\.map)?$/.test(name)) rmSync(join(cli, name));
await build({
  entryPoints: { main: join(cli, 'main.js'), 'verify-worker': join(cli, '../src/receipts/verify-worker.js') },
  outdir: cli,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  allowOverwrite: true,
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
