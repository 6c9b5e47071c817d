/**
 * The README's count of the golden corpus is the corpus: every scenario under golden/ with a
 * recording, how many of them go over HTTP+JSON (`rest-`, `v03-rest-`) and gRPC (`grpc-`), how many
 * speak A2A v0.3 (`v03-`) and how many mix v0.3 and v1.0 (`mixed-dialect-`).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('counts the golden scenarios the README names as they ship', () => {
  const golden = join(ROOT, 'golden');
  const scenarios = readdirSync(golden).filter((name) => existsSync(join(golden, name, 'recording.jsonl')));
  const count = (...prefixes: string[]) =>
    scenarios.filter((name) => prefixes.some((prefix) => name.startsWith(prefix))).length;
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(
    `(${scenarios.length} pause/resume scenarios, ${count('rest-', 'v03-rest-')} of them over HTTP+JSON and ` +
      `${count('grpc-')} over gRPC; ${count('v03-')} in A2A v0.3 and ${count('mixed-dialect-')} mixing v0.3 and v1.0)`,
  );
});
