/**
 * @module logs/verification-lines
 * What a log set's verification says (docs/design.md §6, §17), as `verify` prints it: one line per
 * log (`verifySummary`), the resumptions of pauses outside it, a series' line, its head's, what the
 * checks beyond the chain found, and a fleet's pairing ({@link verificationLines}); and the same as
 * one JSON value ({@link verificationJson}).
 */
import type { VerifyResult } from '../receipts/verify.js';
import { outsideLines, seriesLine, verifySummary } from './describe-verification.js';
import { fleetLines, fleetPauseJson } from './given-logs.js';
import type { LogSetVerification } from './log-set.js';
import type { HeadPlacement } from './series-head.js';

/** What a head kept outside the logs says of the logs given, in one line. */
export function headLine(head: HeadPlacement): string {
  switch (head.kind) {
    case 'at':
      return `head: ${head.message}`;
    case 'missing':
      return `head: MISSING LOG: ${head.message}`;
    case 'refused':
      return `head: INVALID: ${head.message}`;
    default: {
      const never: never = head;
      throw new Error(`unhandled head placement ${String(never)}`);
    }
  }
}

const logLines = (file: string, result: VerifyResult): string[] => [
  verifySummary(file, result),
  ...(result.ok ? outsideLines(file, result) : []),
];

/**
 * The lines that say what `verified` found: of one log, its summary, the resumptions outside it,
 * the lines of its checks and of a head that is not its checkpoint; of a series, one line per log
 * (by position), the series' and its head's; of a fleet, each log (a series' logs together, then
 * its line and the logs that stray from it), then the pairing across them when all verified.
 */
export function verificationLines(verified: LogSetVerification): string[] {
  switch (verified.kind) {
    case 'log': {
      const { file, result, recording, since, witnesses, head } = verified;
      return [
        ...logLines(file, result),
        ...(recording?.lines ?? []),
        ...(since === undefined ? [] : [since.line]),
        ...(witnesses === undefined ? [] : [witnesses.line]),
        ...(head === undefined || head.kind === 'at' ? [] : [headLine(head)]),
      ];
    }
    case 'series': {
      const { series, head } = verified;
      return [
        ...series.members.map((m) => `${m.position}: ${verifySummary(m.path, m.result)}`),
        seriesLine(series),
        ...(head === undefined ? [] : [headLine(head)]),
      ];
    }
    case 'fleet': {
      // The logs come in the order given, a series' together: each series is said at its first log.
      const lines: string[] = [];
      const said = new Set<string>();
      for (const { file, result } of verified.logs) {
        if (said.has(file)) continue;
        const inSeries = verified.series.find((s) => s.result.members.some((m) => m.path === file));
        if (inSeries === undefined) {
          lines.push(...logLines(file, result));
          continue;
        }
        for (const m of inSeries.result.members) {
          said.add(m.path);
          lines.push(...logLines(m.path, m.result));
        }
        lines.push(seriesLine(inSeries.result), ...inSeries.stray);
      }
      if (verified.verdict !== null) lines.push(...fleetLines(verified.logs.length, verified.verdict));
      return lines;
    }
    default: {
      const never: never = verified;
      throw new Error(`unhandled verification ${String(never)}`);
    }
  }
}

/** `verified` as one JSON value (what `verify --json` prints). */
export function verificationJson(verified: LogSetVerification): Record<string, unknown> {
  switch (verified.kind) {
    case 'log': {
      const { file, result, recording, since, witnesses, head } = verified;
      return {
        file,
        ...result,
        ...(recording === undefined ? {} : { recording: { ok: recording.ok, lines: recording.lines } }),
        ...(since === undefined ? {} : { since }),
        ...(witnesses === undefined ? {} : { witnesses }),
        ...(head === undefined ? {} : { head }),
      };
    }
    case 'series':
      return { ...verified.series, ...(verified.head === undefined ? {} : { head: verified.head }) };
    case 'fleet': {
      const { logs, series, verdict } = verified;
      return {
        files: logs.map(({ file, result }) => ({ file, ...result })),
        ...(series.length === 0
          ? {}
          : {
              series: series.map(({ result, stray }) => ({
                id: result.id,
                ok: result.ok,
                files: result.members.map((m) => m.path),
                open: result.open,
                ...(result.error === undefined ? {} : { error: result.error, stray }),
              })),
            }),
        fleet:
          verdict === null
            ? null
            : {
                paired: verdict.paired.map(({ pause, end }) => fleetPauseJson(pause, end)),
                open: verdict.lost.map((pause) => fleetPauseJson(pause, null)),
                orphans: verdict.orphans,
                ambiguous: verdict.ambiguous,
              },
      };
    }
    default: {
      const never: never = verified;
      throw new Error(`unhandled verification ${String(never)}`);
    }
  }
}
