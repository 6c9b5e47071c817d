/**
 * The e2e project's global setup: builds `dist/` once before its tests, so whole-process tests run
 * the CLI users get. The build is skipped when dist/ is already newer than every input (what `npm
 * run build`, or `npm ci` through `prepare`, leaves behind), the way make decides: each
 * src/ and cli/ module has its dist/ output, none older than the module or the tsconfig files.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIRS = ['src', 'cli'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Why dist/ must be built, or null when every output is at least as new as its inputs. */
export function staleReason(root: string): string | null {
  const configs = Math.max(...CONFIGS.map((name) => mtimeOf(join(root, name)) ?? 0));
  for (const dir of SOURCE_DIRS) {
    for (const source of sources(join(root, dir))) {
      const rel = relative(root, source);
      const output = join(root, 'dist', rel.replace(/\.ts$/, '.js'));
      const built = mtimeOf(output);
      if (built === null) return `dist/${rel.replace(/\.ts$/, '.js')} is missing`;
      if (built < (mtimeOf(source) ?? 0)) return `${rel} is newer than its build`;
      if (built < configs) return `${CONFIGS.join(' or ')} is newer than the build`;
    }
  }
  return null;
}

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const reason = staleReason(root);
  if (reason === null) return;
  console.log(`building dist/ (${reason})`);
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  // The program users run is the bundle `npm run build` makes over tsc's output (cli/main.js and
  // its chunks): without it the tests would run tsc's unbundled cli/main.js instead.
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: root, stdio: 'inherit' });
}
