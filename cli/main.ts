#!/usr/bin/env node
/**
 * @module cli/main
 * The `a2a-replay` program: one file per command under `cli/commands/`.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../src/version.js';
import { registerCanon } from './commands/canon.js';
import { registerClient } from './commands/client.js';
import { registerDiff } from './commands/diff.js';
import { registerAudit } from './commands/audit.js';
import { registerKeygen } from './commands/keygen.js';
import { registerVerify } from './commands/verify.js';
import { registerLost } from './commands/lost.js';
import { registerReport } from './commands/report.js';
import { registerMock } from './commands/mock.js';
import { registerPeer } from './commands/peer.js';
import { registerRecord } from './commands/record.js';
import { registerRun } from './commands/run.js';
import { registerTlog } from './commands/tlog.js';
import { EXIT, reportFailure } from './io.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('a2a-replay')
    .description('Record, replay, sign and trace A2A pause/resume exchanges')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerCanon(program);
  registerKeygen(program);
  registerVerify(program);
  registerTlog(program);
  registerAudit(program);
  registerLost(program);
  registerReport(program);
  registerPeer(program);
  registerRecord(program);
  registerRun(program);
  registerDiff(program);
  registerMock(program);
  registerClient(program);
  for (const command of program.commands) command.exitOverride().showHelpAfterError('(run with --help for usage)');
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors were already printed.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportFailure(error);
  }
}

process.exitCode = await main(process.argv);
