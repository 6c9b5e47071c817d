/**
 * The README's count of the golden corpus is the corpus: every scenario under golden/ with a
 * recording, and how many of them go over HTTP+JSON (`rest-`) and gRPC (`grpc-`).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('counts the golden scenarios the README names as they ship', () => {
  const golden = join(ROOT, 'golden');
  const scenarios = readdirSync(golden).filter((name) => existsSync(join(golden, name, 'recording.jsonl')));
  const rest = scenarios.filter((name) => name.startsWith('rest-')).length;
  const grpc = scenarios.filter((name) => name.startsWith('grpc-')).length;
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(
    `(${scenarios.length} pause/resume scenarios, ${rest} of them over HTTP+JSON and ${grpc} over gRPC)`,
  );
});
