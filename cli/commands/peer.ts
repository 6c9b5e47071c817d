/**
 * @module cli/commands/peer
 * `a2a-replay peer`: runs the reference peer (DESIGN §4) until SIGINT or SIGTERM. The first
 * stdout line is `listening on http://HOST:PORT`.
 */
import type { Command } from 'commander';
import { startPeer } from '../../src/index.js';
import { CliExit, EXIT } from '../io.js';

interface PeerCommandOptions {
  host: string;
  port: string;
  deterministic?: boolean;
  seed?: string;
  stepMs?: string;
  control?: boolean;
  legacyPause?: boolean;
  verbose?: boolean;
}

function integerOption(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new CliExit(EXIT.usage, `--${name}: expected an integer from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return n;
}

export function registerPeer(program: Command): void {
  program
    .command('peer')
    .description('run the reference A2A v1.0 peer with the pause/resume extension')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = a free port)', '0')
    .option('--deterministic', 'virtual clock, seeded ids, /control enabled')
    .option('--seed <n>', 'seed of the deterministic ids', '0')
    .option('--step-ms <n>', 'duration of one work step (virtual ms when deterministic)', '1000')
    .option('--control', 'enable /control in real-time mode too')
    .option('--legacy-pause', 'report pauses the Harn way (WORKING + metadata.harn.pause)')
    .option('--verbose', 'diagnostics on stderr')
    .action(async (options: PeerCommandOptions) => {
      const port = integerOption(options.port, 'port', 0, 65535) ?? 0;
      const seed = integerOption(options.seed, 'seed', 0, Number.MAX_SAFE_INTEGER) ?? 0;
      const stepMs = integerOption(options.stepMs, 'step-ms', 1, 24 * 3600 * 1000) ?? 1000;
      const peer = await startPeer({
        host: options.host,
        port,
        deterministic: options.deterministic ?? false,
        seed,
        stepMs,
        control: options.control ?? false,
        legacyPause: options.legacyPause ?? false,
        ...(options.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
      }).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new CliExit(EXIT.usage, `cannot listen on ${options.host}:${port} (${code})`);
        }
        throw error;
      });
      process.stdout.write(`listening on ${peer.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await peer.close();
    });
}
