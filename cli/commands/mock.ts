/**
 * @module cli/commands/mock
 * `a2a-replay mock RECORDING... [--host H] [--port N] [--speed X] [--expect-all] [--report FILE]`:
 * serves the peer side of recordings (docs/design.md §13) until SIGINT or SIGTERM. The first stdout
 * line is `listening on http://HOST:PORT`. At the stop it prints the recorded exchanges never
 * requested (and the requests nothing matched); `--report FILE` writes the same as JSON, and
 * `--expect-all` exits 1 when any recorded exchange was never requested.
 */
import type { Command } from 'commander';
import { describeError, writeOutputFile, printable } from '../../src/public/core.js';
import { type MockReport, type MockSource, startMockServer, REPLAY_MAX_BODY_DEPTH } from '../../src/public/mock.js';
import { readRecording } from '../../src/public/intercept.js';
import { CliExit, EXIT, waitForStopSignal } from '../io.js';
import { checkIgnorePointers, integerOption, noiseRules, recordingArguments, withNoiseOptions } from '../options.js';

interface MockCommandOptions {
  host: string;
  port: string;
  speed?: string;
  expectAll?: boolean;
  report?: string;
  ignore: string[];
  config?: string;
}

/**
 * The stop summary: every recorded exchange never requested, and every request nothing matched.
 * Each line goes through `printable`: a method name, path or field comes from a client or a
 * recording, and must not act on the terminal or start a line of its own (a fake `PASS`).
 */
export function describeMockReport(report: MockReport): string {
  const lines: string[] = [];
  const unrequested = report.recordings.flatMap((r) => r.unrequested);
  if (unrequested.length === 0) lines.push('every recorded exchange was requested');
  else {
    lines.push(
      `${unrequested.length} recorded exchange${unrequested.length === 1 ? ' was' : 's were'} never requested:`,
    );
    for (const e of unrequested) lines.push(`  ${e.recording} seq ${e.seq} (xid ${e.xid}) ${e.method}`);
  }
  if (report.unmatched.length > 0) {
    lines.push(
      `${report.unmatched.length} request${report.unmatched.length === 1 ? '' : 's'} matched no recorded exchange:`,
    );
    for (const u of report.unmatched) {
      const near = u.closest
        ? `closest ${u.closest.recording} seq ${u.closest.seq} (xid ${u.closest.xid})` +
          (u.closest.field !== null ? `, differs at ${u.closest.field}` : ', already requested')
        : 'no recorded exchange';
      lines.push(`  ${u.method} ${u.path}: ${near}`);
    }
  }
  return `${lines.map(printable).join('\n')}\n`;
}

function speedOption(text: string): number {
  const speed = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(speed > 0) || !Number.isFinite(speed))
    throw new CliExit(
      EXIT.usage,
      `--speed: expected a positive number (2 = twice as fast); got ${JSON.stringify(text)}`,
    );
  return speed;
}

export function registerMock(program: Command): void {
  withNoiseOptions(
    program
      .command('mock')
      .description('serve the peer side of recordings, so a client can be tested against them')
      .argument('<recording...>', 'recordings (X.jsonl) whose peer side to serve')
      .option('--host <host>', 'interface to bind', '127.0.0.1')
      .option('--port <port>', 'port to listen on (0 = a free port)', '0')
      .option('--speed <x>', 'keep the recorded timing, scaled (2 = twice as fast); default: as fast as order allows')
      .option('--expect-all', 'exit 1 at the stop when a recorded exchange was never requested')
      .option('--report <file>', 'write what was and was not requested as JSON at the stop'),
    'requests',
  ).action(async (given: string[], options: MockCommandOptions) => {
    const files = await recordingArguments(given);
    const port = integerOption(options.port, 'port', 0, 65535);
    const speed = options.speed === undefined ? undefined : speedOption(options.speed);
    checkIgnorePointers(options.ignore);
    const noise = await noiseRules(options.config);
    const sources: MockSource[] = [];
    for (const file of files)
      sources.push({ source: file, recording: await readRecording(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH }) });
    const mock = await startMockServer(sources, {
      host: options.host,
      port,
      noise,
      ignore: options.ignore,
      ...(speed !== undefined ? { speed } : {}),
    }).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
        throw new CliExit(EXIT.usage, `cannot listen on ${options.host}:${port} (${code})`);
      throw error;
    });
    // Listen for the stop before saying so: a client may stop the mock the moment it reads the line.
    const stopped = waitForStopSignal();
    process.stdout.write(`listening on ${mock.url}\n`);
    await stopped;
    await mock.close();
    const report = mock.report();
    process.stdout.write(describeMockReport(report));
    if (options.report !== undefined)
      await writeOutputFile(options.report, `${JSON.stringify(report, null, 2)}\n`).catch((error: unknown) => {
        throw new CliExit(EXIT.infrastructure, `${options.report}: cannot write the report (${describeError(error)})`);
      });
    const missing = report.recordings.reduce((n, r) => n + r.unrequested.length, 0);
    if (options.expectAll && missing > 0)
      throw new CliExit(
        EXIT.drift,
        `--expect-all: ${missing} recorded exchange${missing === 1 ? ' was' : 's were'} never requested`,
      );
  });
}
