/**
 * The committed protobuf-es code (src/grpc/gen) is what `npm run gen:proto` makes of proto/ today:
 * the test regenerates it into a temporary directory with the pinned buf and protoc-gen-es and
 * compares every file byte for byte (docs/design.md §16).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GEN = 'src/grpc/gen';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('generated gRPC code', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('matches what buf and protoc-gen-es generate from proto/', async () => {
    const out = await mkdtemp(join(tmpdir(), 'a2a-replay-gen-'));
    dirs.push(out);
    const bin = join(ROOT, 'node_modules', '.bin');
    execFileSync(join(bin, 'buf'), ['generate', '--output', out], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const fresh = join(out, GEN);
    const committed = join(ROOT, GEN);
    const names = await filesUnder(fresh);
    expect(names.length).toBeGreaterThan(0);
    expect(await filesUnder(committed), 'the files under src/grpc/gen; run npm run gen:proto').toEqual(names);
    for (const name of names) {
      const want = await readFile(join(fresh, name), 'utf8');
      const got = await readFile(join(committed, name), 'utf8');
      expect(got === want, `${GEN}/${name} is stale; run npm run gen:proto`).toBe(true);
    }
  });
});
