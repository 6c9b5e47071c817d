/**
 * @module cli/commands/diff
 * `a2a-replay diff EXPECTED ACTUAL [--strict | --other-session] [--json]`: compares two receipt logs
 * the way `run` compares a replay with its golden file — receipt by receipt, `{path, expected,
 * actual}`, volatile fields ignored unless `--strict`; `--other-session` also ignores what names the
 * session (a client's session recorded against `mock`, docs/design.md §13). Exit 0 when they
 * match, 1 when they differ, 2 for a missing or malformed log (named with its line).
 */
import type { Command } from 'commander';
import { printable } from '../../src/printable.js';
import { diffReceiptLogs } from '../../src/replay/diff.js';
import { describeDifference } from '../../src/replay/reporters/text.js';
import { readGoldenLines } from '../../src/replay/run-recording.js';
import { CliExit, EXIT } from '../io.js';

async function readLog(path: string): Promise<string[]> {
  const lines = await readGoldenLines(path);
  if (lines === undefined) throw new CliExit(EXIT.usage, `${path}: no such receipt log`);
  return lines;
}

interface DiffCommandOptions {
  strict?: boolean;
  json?: boolean;
  otherSession?: boolean;
}

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('compare two receipt logs receipt by receipt (volatile fields ignored unless --strict)')
    .argument('<expected>', 'the reference receipt log')
    .argument('<actual>', 'the receipt log to check')
    .option('--strict', 'compare the lines byte for byte, signatures included')
    .option('--json', 'print the differences as JSON')
    .option(
      '--other-session',
      'ACTUAL is another session (a client recorded against `mock`): also ignore the recording id, ' +
        'observed times, cited entries and span ids',
    )
    .action(async (expectedPath: string, actualPath: string, options: DiffCommandOptions) => {
      if (options.strict && options.otherSession)
        throw new CliExit(EXIT.usage, '--strict compares bytes; it cannot be used with --other-session');
      const diff = diffReceiptLogs(await readLog(expectedPath), await readLog(actualPath), {
        strict: options.strict ?? false,
        signed: true,
        otherSession: options.otherSession ?? false,
      });
      const same = diff.differences.length === 0;
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ expected: expectedPath, actual: actualPath, same, ...diff }, null, 2)}\n`,
        );
      } else if (same) {
        const ignored =
          diff.ignored.length > 0 ? `; ignored ${diff.ignored.map((i) => `${i.field} (${i.count})`).join(', ')}` : '';
        process.stdout.write(
          `same: ${diff.expectedReceipts} receipts${options.strict ? ', byte for byte' : ''}${ignored}\n`,
        );
      } else {
        process.stdout.write(`${diff.differences.length} difference(s) between ${expectedPath} and ${actualPath}:\n`);
        for (const d of diff.differences) process.stdout.write(`  ${printable(describeDifference(d))}\n`);
      }
      if (!same) throw new CliExit(EXIT.drift, '');
    });
}
