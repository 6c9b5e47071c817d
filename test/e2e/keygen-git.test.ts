/**
 * keygen inside a git work tree, as users run it: the built CLI against a real `git init`.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
let repo: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-keygen-git-'));
  repo = join(dir, 'repo');
  await mkdir(join(repo, 'keys'), { recursive: true });
  execFileSync('git', ['init', '-q', repo]);
  await writeFile(join(repo, '.gitignore'), '*.key.json\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function absent(path: string): Promise<boolean> {
  return stat(path).then(
    () => false,
    () => true,
  );
}

describe('a2a-replay keygen in a git work tree', () => {
  it('refuses a key file git does not ignore, naming it, and writes nothing', async () => {
    const out = join(repo, 'keys', 'signing.json');
    const r = await runCli(['keygen', '--out', out, '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `a2a-replay: --out: ${out} is inside a git work tree and git does not ignore it: a commit could ` +
        'publish the secret key. Write it outside the work tree, add it to .gitignore, or pass ' +
        '--allow-unignored\n',
    );
    expect(r.stdout).toBe('');
    expect(await absent(out)).toBe(true);
  });

  it('refuses a relative path resolved from the working directory', async () => {
    const r = await runCli(['keygen', '--out', 'key.json'], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--out: key.json is inside a git work tree');
    expect(await absent(join(repo, 'key.json'))).toBe(true);
  });

  it('writes a key file git ignores', async () => {
    const out = join(repo, 'keys', 'ci.key.json');
    const r = await runCli(['keygen', '--out', out, '--kid', 'ci']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote key ci to ${out} (mode 0600)\n`);
  });

  it('writes an unignored key file with --allow-unignored', async () => {
    const out = join(repo, 'allowed.json');
    const r = await runCli(['keygen', '--out', out, '--kid', 'ok', '--allow-unignored']);
    expect(r.code).toBe(0);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  });

  it('writes outside any work tree without asking', async () => {
    const out = join(dir, 'outside.json');
    const r = await runCli(['keygen', '--out', out, '--kid', 'out']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
