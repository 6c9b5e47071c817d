#!/usr/bin/env node
/**
 * @module cli/main
 * The `a2a-replay` program: one file per command under `cli/commands/`. A process loads the
 * module of the command it runs and no other (each command module pulls in its layers: loading
 * all of them cost every process about twice the CPU of one command's); `--help`, `--version`, no
 * command or an unknown one load every command, so the listing and the suggestions are whole.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../src/public/core.js';
import { EXIT, reportFailure } from './io.js';

type Register = (program: Command) => void;

/** Each command module, in the order `--help` lists them, with the command names it registers. */
const COMMANDS: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['canon'], load: async () => (await import('./commands/canon.js')).registerCanon },
  { names: ['keygen'], load: async () => (await import('./commands/keygen.js')).registerKeygen },
  { names: ['verify'], load: async () => (await import('./commands/verify.js')).registerVerify },
  {
    names: ['checkpoint', 'prove', 'verify-proof'],
    load: async () => (await import('./commands/tlog.js')).registerTlog,
  },
  { names: ['audit'], load: async () => (await import('./commands/audit.js')).registerAudit },
  { names: ['lost'], load: async () => (await import('./commands/lost.js')).registerLost },
  { names: ['report'], load: async () => (await import('./commands/report.js')).registerReport },
  { names: ['peer'], load: async () => (await import('./commands/peer.js')).registerPeer },
  { names: ['record'], load: async () => (await import('./commands/record.js')).registerRecord },
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRun },
  { names: ['diff'], load: async () => (await import('./commands/diff.js')).registerDiff },
  { names: ['mock'], load: async () => (await import('./commands/mock.js')).registerMock },
  { names: ['client'], load: async () => (await import('./commands/client.js')).registerClient },
];

/** The program with the command `argv` names, or every command when it names none it knows. */
export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command();
  program
    .name('a2a-replay')
    .description('Record, replay, sign and trace A2A pause/resume exchanges')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const name = argv[2];
  const one = COMMANDS.find((c) => name !== undefined && c.names.includes(name));
  for (const command of one ? [one] : COMMANDS) (await command.load())(program);
  for (const command of program.commands) command.exitOverride().showHelpAfterError('(run with --help for usage)');
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
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
