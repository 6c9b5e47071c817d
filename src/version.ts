/**
 * @module version
 * The package version, read once from package.json so the CLI, recordings and receipts agree.
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // dist/src/version.js and src/version.ts both sit two levels below the package root... or one.
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'a2a-replay' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
export const TOOL_NAME = `a2a-replay@${VERSION}`;
