import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a2a-replay canon', () => {
  it('prints the RFC 8785 form of stdin', async () => {
    const result = await runCli(['canon'], { input: '{"b":[1e21,0.1,-0],"a":"\\u20ac","\\u00e9":1}' });
    expect(result).toMatchObject({ code: 0, stdout: '{"a":"€","b":[1e+21,0.1,0],"é":1}\n', stderr: '' });
  });

  it('prints sha256:<hex> with --hash, reading a file argument', async () => {
    const dir = await tempDir('canon-');
    const file = join(dir, 'doc.json');
    await writeFile(file, '{ "b": 2, "a": 1 }');
    const result = await runCli(['canon', '--hash', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const same = await runCli(['canon', '--hash'], { input: '{"a":1,"b":2}' });
    expect(same.stdout).toBe(result.stdout);
  });

  it('exits 2 with one line naming the position of invalid JSON', async () => {
    const result = await runCli(['canon'], { input: '{"a": [1,\n 2,, 3]}' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`a2a-replay: stdin:2:4: invalid JSON: unexpected "," where a value was expected\n`);
  });

  it('exits 2 naming the path of a value JCS cannot represent', async () => {
    const result = await runCli(['canon'], { input: '{"x":{"s":"\\ud800"}}' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('$.x.s');
  });

  it('exits 2 naming a key repeated in one object, never hashing the input', async () => {
    const result = await runCli(['canon', '--hash'], { input: '{"conditions":{"onEvent":"a",\n"onEvent":"b"}}' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/stdin:2:1: duplicate key "onEvent" at \/conditions\/onEvent/);
  });

  it('exits 2 for a file it cannot read', async () => {
    const result = await runCli(['canon', '/nonexistent/doc.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\/nonexistent\/doc\.json: cannot read \(ENOENT\)/);
  });

  it('answers --version and --help with exit 0, and an unknown command with exit 2', async () => {
    const version = await runCli(['--version']);
    expect(version).toMatchObject({ code: 0 });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('canon');
    const unknown = await runCli(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'nope'");
  });

  it('runs as `npx a2a-replay` in the project, as the first command of the README does on a fresh clone', () => {
    // The built entry is executable: npm sets that bit on installed packages, not on the project's own bin.
    // npx installs the project into its cache the first time it sees its path, which runs `prepare`
    // (a build into this very dist/) while other tests run the CLI from it: scripts are off here, as
    // dist/ is already built.
    const built = statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs;
    const npx = spawnSync('npx', ['--no-install', 'a2a-replay', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_ignore_scripts: 'true' },
    });
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs, 'npx rebuilt dist/ under the running tests').toBe(built);
  });
});
