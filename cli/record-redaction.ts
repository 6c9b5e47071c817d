/**
 * @module cli/record-redaction
 * `record`'s redaction flags (docs/design.md §5, "Secrets by rule"): `--redact`, `--keep-header`,
 * `--redact-query`, `--keep-query`, `--redact-json-key`, `--keep-json-key` adjust the default rule
 * set, and the recording's mark key is derived from the receipt key when one is given, else drawn
 * at random; either way it is held in memory only.
 */
import type { Command } from 'commander';
import type { Keyring } from '../src/receipts/keys.js';
import { RedactionMarks, derivedMarkKey, randomMarkKey } from '../src/recording/redaction-mark.js';
import { Redactor } from '../src/recording/redaction.js';
import { DEFAULT_SECRET_RULES, adjustSecretRules, jsonKeyForm } from '../src/recording/secret-rules.js';
import { CliExit, EXIT } from './io.js';

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

/** The names given to both flags of a pair, compared as `form` gives them. */
function bothNamed(add: readonly string[], keep: readonly string[], form: (name: string) => string): string[] {
  const added = new Set(add.map(form));
  return keep.filter((name) => added.has(form(name)));
}

/** The first signing key's HMAC of a label, or undefined without one. */
function macOfKeyring(keyring: Keyring | undefined): ((data: string) => Uint8Array) | undefined {
  const kid = keyring?.kids.find((k) => keyring.get(k)?.hasHmac);
  const key = kid === undefined ? undefined : keyring?.get(kid);
  return key === undefined ? undefined : (data) => key.macOf([data]);
}

/**
 * The recording's redaction: the default rule adjusted by the flags, marks under a key derived
 * from the receipt key (so a fleet or a `--continue-from` series marks alike) or a random one.
 * A name given to a flag and to its `--keep-*` twin is a usage error.
 */
export function recordRedaction(flags: RedactionFlags, keyring: Keyring | undefined): Redactor {
  const lower = (name: string): string => name.toLowerCase();
  const pairs = [
    ['--keep-header', '--redact', bothNamed(flags.redact ?? [], flags.keepHeader ?? [], lower)],
    ['--keep-query', '--redact-query', bothNamed(flags.redactQuery ?? [], flags.keepQuery ?? [], lower)],
    [
      '--keep-json-key',
      '--redact-json-key',
      bothNamed(flags.redactJsonKey ?? [], flags.keepJsonKey ?? [], jsonKeyForm),
    ],
  ] as const;
  for (const [keep, add, both] of pairs) {
    if (both.length > 0)
      throw new CliExit(EXIT.usage, `${keep}: ${both.join(', ')} is also named by ${add}; name it in one only`);
  }
  const rules = adjustSecretRules({
    redact: flags.redact ?? [],
    keepHeaders: flags.keepHeader ?? [],
    redactQuery: flags.redactQuery ?? [],
    keepQuery: flags.keepQuery ?? [],
    redactJsonKeys: flags.redactJsonKey ?? [],
    keepJsonKeys: flags.keepJsonKey ?? [],
  });
  const mac = macOfKeyring(keyring);
  return new Redactor(new RedactionMarks(mac === undefined ? randomMarkKey() : derivedMarkKey(mac)), rules);
}
