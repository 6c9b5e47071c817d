/**
 * @module recording/secret-rules
 * The published default rule set for secrets (docs/design.md §5, "Secrets by rule"): data, not
 * code. One rule decides, for every place a credential can travel — a header name, a header value
 * that is a URL, a URL anywhere (request targets, URL strings in bodies), a query parameter name,
 * a JSON member name at any depth — whether its value is replaced by a redaction mark.
 * src/recording/redaction.ts applies it; `record --redact`, `--keep-header`, `--redact-query`,
 * `--keep-query`, `--redact-json-key` and `--keep-json-key` adjust it ({@link adjustSecretRules}).
 */

/** What decides that a value is secret, by the name it travels under. All names lower-case. */
export interface SecretRules {
  /** Header names secret as a whole (`authorization`, and every `--redact NAME`). */
  readonly headerNames: readonly string[];
  /** A header name containing one of these anywhere is secret (`x-functions-key`, `apikey`). */
  readonly headerWords: readonly string[];
  /**
   * A header name holding one of these as a whole word (between `-`, `_` or `.`) is secret: words
   * too short to look for inside others (`x-pin` is, `x-shipping` is not).
   */
  readonly headerWholeWords: readonly string[];
  /** Header names recorded in clear whatever the rest says (`--keep-header`). */
  readonly keepHeaders: readonly string[];
  /**
   * Headers whose value is (or holds) a URL: their user-info and secret query values are
   * redacted, the rest kept. Any other header value holding `://` or `?` is read the same way.
   */
  readonly urlHeaders: readonly string[];
  /** A query parameter name containing one of these anywhere is secret (`access_token`, `X-Amz-Signature`). */
  readonly queryWords: readonly string[];
  /** Query parameter names secret as a whole (`code`, `state`, `sig`, and every `--redact-query NAME`). */
  readonly queryNames: readonly string[];
  /** Query parameter names kept in clear whatever the rest says (`--keep-query`). */
  readonly keepQuery: readonly string[];
  /**
   * A JSON member whose name, split into words (camelCase, `_`, `-`, `.`), ends in one of these
   * is secret (`api_key`, `accessToken`, `client_secret`, `db.password`); `apiKeySecurityScheme`
   * ends in `scheme` and is not.
   */
  readonly jsonKeyLastWords: readonly string[];
  /**
   * JSON member names secret as a whole, compared with separators removed and lower-cased
   * (`credentials`, `cookie`, and every `--redact-json-key NAME`).
   */
  readonly jsonKeyNames: readonly string[];
  /**
   * JSON member names never secret, compared as {@link jsonKeyNames} (`resumeToken`, which the
   * recorder replaces by a placeholder replay maps, and `pageToken`/`nextPageToken`, A2A cursors;
   * every `--keep-json-key NAME`).
   */
  readonly keepJsonKeys: readonly string[];
}

/**
 * The default rule set. Each family, and why it is in it:
 * - **Credentials by their own name**: `key`, `token`, `secret`, `password`, `passwd`,
 *   `passphrase`, `credential`, `auth` (authorization, authentication), `cookie`, `session`,
 *   `signature`, `assertion`, `jwt`, `oidc` (the `x-amzn-oidc-*` identity headers), `bearer`.
 * - **Proof-of-possession and request signing**: `dpop` (RFC 9449 proofs), `hmac`, `sig`.
 * - **One-time codes and anti-forgery**: `otp`, `pin`, `csrf`, `xsrf`, `nonce`, `ticket`.
 * - **Identity asserted by a front end**: `principal` (`X-Ms-Client-Principal` carries the
 *   caller's identity claims, base64 JSON).
 * - **Gate passes**: `bypass` (`X-Vercel-Protection-Bypass`), `pat` (personal access tokens).
 * - **URL-valued headers**: `Referer`, `Origin`, `Location`, `Content-Location`, `Link`,
 *   `Refresh`, `X-Original-URL`, `X-Forwarded-Uri`, `X-Rewrite-URL`, `Forwarded`: a redirect
 *   or a referring page carries `?code=` or `?access_token=` and user-info.
 * - **Query names**: OAuth's `code`, `state` (as a query name it is OAuth state, bound to a
 *   login), `id_token`; session ids (`sid`, `PHPSESSID`, `jsessionid`); presigned URLs
 *   (`X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`, `X-Goog-Signature`,
 *   `X-Goog-Credential`, Azure SAS `sig` and its expiry `se`); `refresh`; passwords `pwd`, `pw`,
 *   `pass`.
 * - **JSON members** (request and answer bodies, stream events, the agent card): a name ending in
 *   a credential word (`api_key`, `access_token`, `client_secret`, `refresh_token`,
 *   `private_key`, `password`), or one of the whole names. The words are the last word only,
 *   since bodies carry names like `apiKeySecurityScheme` and `tokenUrl` (card fields) that name
 *   no secret. `state` is never a JSON member rule: it holds A2A task states (`status.state`).
 *   A2A ids (`taskId`, `contextId`, `messageId`) end in `id` and never match.
 */
export const DEFAULT_SECRET_RULES: SecretRules = {
  headerNames: ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key'],
  headerWords: [
    'key',
    'token',
    'secret',
    'password',
    'passwd',
    'passphrase',
    'credential',
    'assertion',
    'jwt',
    'session',
    'signature',
    'auth',
    'cookie',
    'oidc',
    'bearer',
    'principal',
    'bypass',
    'dpop',
    'hmac',
    'csrf',
    'xsrf',
  ],
  headerWholeWords: ['otp', 'pin', 'pat', 'sig', 'sid', 'nonce', 'ticket', 'pwd', 'pw', 'pass'],
  keepHeaders: [],
  urlHeaders: [
    'referer',
    'origin',
    'location',
    'content-location',
    'link',
    'refresh',
    'x-original-url',
    'x-forwarded-uri',
    'x-rewrite-url',
    'forwarded',
  ],
  queryWords: [
    'key',
    'token',
    'secret',
    'password',
    'passwd',
    'passphrase',
    'credential',
    'assertion',
    'jwt',
    'session',
    'sessid',
    'signature',
    'auth',
    'cookie',
    'oidc',
    'sig',
    'hmac',
    'otp',
    'csrf',
    'xsrf',
    'nonce',
    'ticket',
    'bypass',
  ],
  queryNames: ['code', 'state', 'pwd', 'pw', 'pass', 'pin', 'sid', 'se', 'refresh', 'pat', 'dpop'],
  // The HTTP+JSON ListTasks cursor, which replay sends back.
  keepQuery: ['pagetoken', 'page_token'],
  jsonKeyLastWords: [
    'key',
    'keys',
    'token',
    'tokens',
    'secret',
    'secrets',
    'password',
    'passwords',
    'passwd',
    'passphrase',
    'pwd',
    'credential',
    'credentials',
    'signature',
    'cookie',
    'cookies',
    'otp',
    'pin',
    'csrf',
    'xsrf',
    'hmac',
    'jwt',
    'assertion',
    'bearer',
    'dpop',
    'nonce',
    'ticket',
    'authorization',
  ],
  jsonKeyNames: ['apikey', 'accesskey', 'privatekey', 'secretkey', 'sessionid', 'sid', 'pat', 'sig', 'auth'],
  keepJsonKeys: ['resumetoken', 'pagetoken', 'nextpagetoken'],
};

/** What the `record` flags add to or take out of a rule set (names in any case). */
export interface SecretRuleAdjustments {
  /** `--redact NAME`: header names secret as a whole. */
  redact?: readonly string[];
  /** `--keep-header NAME`: header names kept in clear. */
  keepHeaders?: readonly string[];
  /** `--redact-query NAME`: query names secret as a whole. */
  redactQuery?: readonly string[];
  /** `--keep-query NAME`: query names kept in clear. */
  keepQuery?: readonly string[];
  /** `--redact-json-key NAME`: JSON member names secret as a whole. */
  redactJsonKeys?: readonly string[];
  /** `--keep-json-key NAME`: JSON member names kept in clear. */
  keepJsonKeys?: readonly string[];
}

/** A JSON member name as the JSON rules compare it: lower case, `_`, `-` and `.` removed. */
export function jsonKeyForm(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, '');
}

/** `rules` with `adjust` applied (lists lower-cased; JSON names in {@link jsonKeyForm}). */
export function adjustSecretRules(adjust: SecretRuleAdjustments, rules = DEFAULT_SECRET_RULES): SecretRules {
  const lower = (names: readonly string[] | undefined): string[] => (names ?? []).map((n) => n.toLowerCase());
  const json = (names: readonly string[] | undefined): string[] => (names ?? []).map(jsonKeyForm);
  return {
    ...rules,
    headerNames: [...rules.headerNames, ...lower(adjust.redact)],
    keepHeaders: [...rules.keepHeaders, ...lower(adjust.keepHeaders)],
    queryNames: [...rules.queryNames, ...lower(adjust.redactQuery)],
    // A name a flag redacts leaves the set's own keep list (`--redact-query pageToken`).
    keepQuery: [...rules.keepQuery.filter((n) => !lower(adjust.redactQuery).includes(n)), ...lower(adjust.keepQuery)],
    jsonKeyNames: [...rules.jsonKeyNames, ...json(adjust.redactJsonKeys)],
    keepJsonKeys: [
      ...rules.keepJsonKeys.filter((n) => !json(adjust.redactJsonKeys).includes(n)),
      ...json(adjust.keepJsonKeys),
    ],
  };
}
