/**
 * @module cli/commands/canon
 * `a2a-replay canon [FILE] [--hash]`: the RFC 8785 form of a JSON document, or its hash.
 */
import type { Command } from 'commander';
import { canonicalJson, sha256Prefixed, parseJsonText } from '../../src/public/core.js';
import { readInput } from '../io.js';

export function registerCanon(program: Command): void {
  program
    .command('canon')
    .description('print the RFC 8785 canonical form of JSON from FILE or stdin')
    .argument('[file]', 'JSON file (default: stdin)')
    .option('--hash', 'print sha256:<hex> of the canonical form instead')
    .action(async (file: string | undefined, options: { hash?: boolean }) => {
      const { text, source } = await readInput(file);
      const canonical = canonicalJson(parseJsonText(text, source));
      process.stdout.write(`${options.hash ? sha256Prefixed(canonical) : canonical}\n`);
    });
}
