/**
 * @module record/redaction-setup
 * A recorder's redaction (docs/design.md §5, "Secrets by rule"): `redact`, `keepHeader`,
 * `redactQuery`, `keepQuery`, `redactJsonKey`, `keepJsonKey` adjust the default rule set, and the
 * recording's mark key is derived from the receipt key when one is given, else drawn at random;
 * either way it is held in memory only.
 */
import type { Keyring } from '../receipts/keys.js';
import { RedactionMarks, derivedMarkKey, randomMarkKey } from '../recording/redaction-mark.js';
import { Redactor } from '../recording/redaction.js';
import { adjustSecretRules, jsonKeyForm } from '../recording/secret-rules.js';
import { RecorderOptionError } from './option-error.js';

/** Names added to, or kept out of, the default secret rules. */
export interface RedactionOptions {
  redact?: readonly string[] | undefined;
  keepHeader?: readonly string[] | undefined;
  redactQuery?: readonly string[] | undefined;
  keepQuery?: readonly string[] | undefined;
  redactJsonKey?: readonly string[] | undefined;
  keepJsonKey?: readonly string[] | undefined;
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
 * from the receipt key (so a fleet or a `continueFrom` series marks alike) or a random one.
 * A name given to an option and to its `keep*` twin is a {@link RecorderOptionError}.
 */
export function recordRedaction(flags: RedactionOptions, keyring: Keyring | undefined): Redactor {
  const lower = (name: string): string => name.toLowerCase();
  const pairs = [
    ['keepHeader', 'redact', bothNamed(flags.redact ?? [], flags.keepHeader ?? [], lower)],
    ['keepQuery', 'redactQuery', bothNamed(flags.redactQuery ?? [], flags.keepQuery ?? [], lower)],
    ['keepJsonKey', 'redactJsonKey', bothNamed(flags.redactJsonKey ?? [], flags.keepJsonKey ?? [], jsonKeyForm)],
  ] as const;
  for (const [keep, add, both] of pairs) {
    if (both.length > 0)
      throw new RecorderOptionError(keep, `${both.join(', ')} is also named by \`${add}\`; name it in one only`);
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
