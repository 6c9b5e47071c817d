/**
 * @module cli/commands/diff
 * `a2a-replay diff EXPECTED ACTUAL [--strict | --other-session] [--json]`: compares two receipt logs
 * the way `run` compares a replay with its golden file — receipt by receipt, `{path, expected,
 * actual}`, volatile fields ignored unless `--strict`; `--other-session` also ignores what names the
 * session (a client's session recorded against `mock`, docs/design.md §13). Exit 0 when they
 * match, 1 when they differ, 2 for a missing or malformed log (named with its line).
 *
 * `a2a-replay diff GOLDEN... -- LIVE... [--json]`, or two directories: the receipt logs of two
 * fleets (each side's logs grouped by series as `verify` groups them, docs/design.md §17), their
 * receipts paired by pause identity whichever file holds them; each drift names the golden file
 * and line and the live one.
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { printable } from '../../src/public/core.js';
import { diffFleets, diffReceiptLogs, readReceiptLogLines } from '../../src/public/receipts.js';
import { describeDifference } from '../../src/public/replay.js';
import { CliExit, EXIT } from '../io.js';

interface DiffCommandOptions {
  strict?: boolean;
  json?: boolean;
  otherSession?: boolean;
}

/**
 * How many operands followed a `--` on the command line (commander drops the `--` itself), or
 * null when there was none.
 */
function operandsAfterDash(command: Command): number | null {
  const raw = (command.parent as unknown as { rawArgs?: unknown } | null)?.rawArgs;
  if (!Array.isArray(raw)) return null;
  const at = raw.indexOf('--');
  return at === -1 ? null : raw.length - at - 1;
}

/** The two sides of `diff`: one file each (today's one-to-one diff), or two fleets. */
async function sidesOf(
  operands: readonly string[],
  command: Command,
): Promise<{ expected: string[]; actual: string[]; fleet: boolean }> {
  const after = operandsAfterDash(command);
  if (after !== null) {
    const expected = operands.slice(0, operands.length - after);
    const actual = operands.slice(operands.length - after);
    if (expected.length === 0 || actual.length === 0)
      throw new CliExit(EXIT.usage, 'diff GOLDEN... -- LIVE...: give at least one log on each side of --');
    return { expected, actual, fleet: true };
  }
  if (operands.length !== 2)
    throw new CliExit(
      EXIT.usage,
      `diff takes two receipt logs (or directories), or GOLDEN... -- LIVE...; got ${operands.length} arguments`,
    );
  const directory = async (f: string): Promise<boolean> => (await stat(f).catch(() => null))?.isDirectory() === true;
  const fleet = (await directory(operands[0]!)) || (await directory(operands[1]!));
  return { expected: [operands[0]!], actual: [operands[1]!], fleet };
}

/** `diff GOLDEN... -- LIVE...`: two fleets, receipts paired by pause identity (docs/design.md §17). */
async function diffFleetsCommand(golden: string[], live: string[], options: DiffCommandOptions): Promise<void> {
  if (options.strict) throw new CliExit(EXIT.usage, '--strict compares one log with one log, byte for byte');
  const { expected, actual, diff } = await diffFleets(golden, live);
  const same = diff.differences.length === 0;
  if (options.json) process.stdout.write(`${JSON.stringify({ expected, actual, same, ...diff }, null, 2)}\n`);
  else if (same)
    process.stdout.write(
      `same: ${diff.expectedReceipts} receipts in a fleet of ${expected.length} logs and one of ${actual.length}, ` +
        'paired by pause identity\n',
    );
  else {
    process.stdout.write(
      `${diff.differences.length} difference(s) between the fleet of ${expected.length} logs ` +
        `(${expected.join(', ')}) and the fleet of ${actual.length} (${actual.join(', ')}):\n`,
    );
    for (const d of diff.differences) process.stdout.write(`  ${printable(describeDifference(d))}\n`);
  }
  if (!same) throw new CliExit(EXIT.drift, '');
}

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description(
      'compare two receipt logs receipt by receipt (volatile fields ignored unless --strict); ' +
        'GOLDEN... -- LIVE..., or two directories, compare two fleets pairing receipts by pause identity',
    )
    .argument(
      '<logs...>',
      'EXPECTED ACTUAL, or GOLDEN... -- LIVE... (receipt logs, recordings with their logs beside them, directories)',
    )
    .option('--strict', 'compare the lines byte for byte, signatures included')
    .option('--json', 'print the differences as JSON')
    .option(
      '--other-session',
      'ACTUAL is another session (a client recorded against `mock`): also ignore the recording id, ' +
        'observed times, cited entries and span ids',
    )
    .action(async (operands: string[], options: DiffCommandOptions, command: Command) => {
      if (options.strict && options.otherSession)
        throw new CliExit(EXIT.usage, '--strict compares bytes; it cannot be used with --other-session');
      const sides = await sidesOf(operands, command);
      if (sides.fleet) return diffFleetsCommand(sides.expected, sides.actual, options);
      const [expectedPath, actualPath] = [sides.expected[0]!, sides.actual[0]!];
      const diff = diffReceiptLogs(await readReceiptLogLines(expectedPath), await readReceiptLogLines(actualPath), {
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
