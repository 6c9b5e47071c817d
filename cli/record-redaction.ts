/**
 * @module cli/record-redaction
 * `record`'s redaction flags (docs/design.md §5, "Secrets by rule"): `--redact`, `--keep-header`,
 * `--redact-query`, `--keep-query`, `--redact-json-key`, `--keep-json-key` adjust the default rule
 * set (src/record/redaction-setup.ts).
 */
import type { Command } from 'commander';
import { DEFAULT_SECRET_RULES } from '../src/public/intercept.js';

/** The redaction flags as commander gives them. */
export interface RedactionFlags {
  redact?: string[];
  keepHeader?: string[];
  redactQuery?: string[];
  keepQuery?: string[];
  redactJsonKey?: string[];
  keepJsonKey?: string[];
}

/** Adds the redaction flags to `command`. */
export function redactionFlags(command: Command): Command {
  const rules = DEFAULT_SECRET_RULES;
  return command
    .option(
      '--redact <header...>',
      `extra header names to redact (always: ${rules.headerNames.join(', ')}, every header whose name contains ` +
        `${rules.headerWords.join(', ')}, or holds the word ${rules.headerWholeWords.join(', ')}; ` +
        `URLs in values, ${rules.urlHeaders.join(', ')} and any other, lose user-info and secret query values)`,
    )
    .option(
      '--keep-header <header...>',
      'header names recorded in clear although their names say secret (never one --redact names)',
    )
    .option(
      '--redact-query <name...>',
      `extra query parameter names whose values are redacted in every recorded URL (always: every name ` +
        `containing ${rules.queryWords.join(', ')}, and every one named ${rules.queryNames.join(', ')}); ` +
        'the request sent upstream is unchanged',
    )
    .option(
      '--keep-query <name...>',
      'query parameter names recorded in clear although the rule says secret (never one --redact-query names)',
    )
    .option(
      '--redact-json-key <name...>',
      `extra JSON member names whose values are redacted in bodies, events and the agent card (always: a name ` +
        `ending in the word ${rules.jsonKeyLastWords.join(', ')}; never ${rules.keepJsonKeys.join(', ')})`,
    )
    .option(
      '--keep-json-key <name...>',
      'JSON member names recorded in clear although the rule says secret (never one --redact-json-key names)',
    );
}
