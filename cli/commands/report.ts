/**
 * @module cli/commands/report
 * `a2a-replay report FILE... --out report.html [--key FILE]... [--public-key FILE]...`: one
 * self-contained HTML file over recordings and receipt logs (docs/design.md §12) — each task's
 * states over time, each pause coloured by initiator with its end, rejected attempts and lost
 * verdict, and the audit rows with receipt hashes, span ids and verification status; a recording
 * and its receipt log are joined into one view, and the lost pauses are listed first. Exit 0
 * when written; 2 on a usage error or a file that is neither a recording nor a receipt log. With
 * `--fleet`, or a directory given, the receipt logs of several recorder replicas (each one log or
 * a series) are one section: each pause says which log saw it begin and end (docs/design.md §17).
 */
import type { Command } from 'commander';
import { A2aReplayError, errorMessage } from '../../src/public/core.js';
import { loadKeyring, type Keyring } from '../../src/public/receipts.js';
import {
  type ReportSection,
  ReportInputError,
  pausesOf,
  reportSections,
  traceUrlProblem,
  writeHtmlReport,
} from '../../src/public/report.js';
import { CliExit, EXIT } from '../io.js';

/** Writes the report to `out` (see writeHtmlReport); a file that cannot be written is a usage error. */
export async function writeReport(
  out: string,
  sections: ReportSection[],
  title: string,
  traceUrl?: string,
): Promise<void> {
  try {
    await writeHtmlReport(out, sections, title, traceUrl);
  } catch (error) {
    if (error instanceof A2aReplayError) throw new CliExit(EXIT.usage, error.message);
    throw error;
  }
}

interface ReportOptions {
  out: string;
  key: string[];
  publicKey: string[];
  fleet?: boolean;
  traceUrl?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('one self-contained HTML file of pauses, receipts and lost pauses, over recordings and receipt logs')
    .argument(
      '<files...>',
      'recordings (*.jsonl) and receipt logs (*.receipts.jsonl); with --fleet, or a directory, the receipt logs ' +
        '(a recording standing for the log beside it, a directory for the logs in it) of one fleet',
    )
    .requiredOption('--out <file>', 'the HTML file to write')
    .option('--key <file>', 'key file to verify receipt logs with (repeatable)', collect, [])
    .option('--public-key <file>', 'public key file: verifies checkpoints only (repeatable)', collect, [])
    .option(
      '--trace-url <template>',
      'make every span shown a link to its trace, e.g. http://jaeger:16686/trace/{traceId} ({traceId} and ' +
        '{spanId} are replaced; default: A2A_REPLAY_TRACE_URL)',
    )
    .option(
      '--fleet',
      'read the logs as one fleet of recorder replicas (each a log or a series): one section, each pause ' +
        'with the log that saw it begin and end',
    )
    .action(async (files: string[], options: ReportOptions) => {
      const traceUrl = traceUrlOption(options.traceUrl);
      let keyring: Keyring | undefined;
      if (options.key.length > 0 || options.publicKey.length > 0) {
        try {
          const loaded = await loadKeyring({ keys: options.key, publicKeys: options.publicKey, env: {} });
          for (const warning of loaded.warnings) process.stderr.write(`a2a-replay: ${warning}\n`);
          keyring = loaded.keyring;
        } catch (error) {
          throw new CliExit(EXIT.usage, errorMessage(error));
        }
      }
      let sections: ReportSection[];
      try {
        sections = await reportSections(files, { keyring, fleet: options.fleet });
      } catch (error) {
        if (error instanceof ReportInputError) throw new CliExit(EXIT.usage, error.message);
        throw error;
      }
      await writeReport(options.out, sections, 'a2a-replay report', traceUrl);
      let pauses = 0;
      let lost = 0;
      let interruptions = 0;
      let lostInterruptions = 0;
      for (const s of sections) {
        pauses += pausesOf(s);
        for (const r of s.rows) if (r.outcome === 'lost') lost++;
        interruptions += s.interruptions?.length ?? 0;
        for (const r of s.interruptions ?? []) if (r.outcome === 'lost') lostInterruptions++;
      }
      const interrupted =
        interruptions === 0
          ? ''
          : `, ${interruptions} interruption${interruptions === 1 ? '' : 's'}, ${lostInterruptions} lost`;
      process.stdout.write(
        `wrote ${options.out}: ${files.length} files, ${pauses} pauses, ${lost} lost${interrupted}\n`,
      );
    });
}

/** `--trace-url`, else A2A_REPLAY_TRACE_URL: a template naming `{traceId}`, refused (exit 2) when it cannot be one. */
export function traceUrlOption(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const template = given ?? (env['A2A_REPLAY_TRACE_URL']?.trim() || undefined);
  if (template === undefined) return undefined;
  const problem = traceUrlProblem(template);
  if (problem !== undefined)
    throw new CliExit(
      EXIT.usage,
      `${given === undefined ? 'A2A_REPLAY_TRACE_URL' : '--trace-url'}: ${JSON.stringify(template)}: ${problem}`,
    );
  return template;
}
