/**
 * @module scripts/golden/v03-wire
 * What the golden client sends when it speaks A2A v0.3 (docs/design.md §4 "Two dialects",
 * §14.10): the v1.0 call a scenario is written in, as a v0.3 client would send it — the JSON-RPC
 * method's v0.3 name (`message/send`, `tasks/pause`, ...), a message with `kind` and
 * `role: "user"` and parts `{kind: "text" | "data"}` (JSON-RPC) or ProtoJSON of the v0.3 proto
 * (`content`, a DataPart's object in `data.data`; HTTP+JSON), `returnImmediately` as `blocking`'s
 * inverse. Answers are read back into v1.0's shapes by the observer's own v0.3 reader
 * (`src/observe/v03-dialect.ts`), so a scenario is written once for both dialects.
 */
import { V03_METHODS } from '../../src/protocol/methods.js';
import type { V03Form } from '../../src/observe/v03-dialect.js';

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The v0.3 JSON-RPC name of the v1.0 method `method`; an error for one v0.3 has not. */
export function v03MethodName(method: string): string {
  const name = Object.keys(V03_METHODS).find((n) => V03_METHODS[n] === method);
  if (name === undefined) throw new Error(`${method} has no A2A v0.3 method`);
  return name;
}

/** A v1.0 part (`{text}`, `{data}`) in v0.3's form. */
function partTo(value: unknown, form: V03Form): unknown {
  if (!isObj(value)) return value;
  const { text, data, ...rest } = value;
  if (text !== undefined) return form === 'rpc' ? { kind: 'text', text, ...rest } : { text, ...rest };
  if (data !== undefined) return form === 'rpc' ? { kind: 'data', data, ...rest } : { data: { data }, ...rest };
  throw new Error(`the golden client sends only text and data parts in v0.3, not ${JSON.stringify(value)}`);
}

const ROLES: Readonly<Obj> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };

/** A v1.0 message in v0.3's form: `kind` and a lowercase role (JSON-RPC), or `content` (ProtoJSON). */
function messageTo(value: unknown, form: V03Form): unknown {
  if (!isObj(value)) return value;
  const { parts, role, ...rest } = value;
  const converted = Array.isArray(parts) ? parts.map((p) => partTo(p, form)) : parts;
  return form === 'rpc'
    ? { kind: 'message', ...rest, role: typeof role === 'string' ? (ROLES[role] ?? role) : role, parts: converted }
    : { ...rest, role, content: converted };
}

/**
 * The v0.3 params of the v1.0 call `method(params)`: a message converted, `returnImmediately` as
 * `blocking` (said always, as a proto bool would be); every other call's params are the same in
 * both dialects.
 */
export function v03ParamsOf(method: string, params: unknown, form: V03Form): unknown {
  if (!isObj(params) || (method !== 'SendMessage' && method !== 'SendStreamingMessage')) return params;
  const out: Obj = { ...params, message: messageTo(params.message, form) };
  if (isObj(params.configuration)) {
    const { returnImmediately, ...rest } = params.configuration;
    out.configuration = { ...rest, blocking: returnImmediately !== true };
  }
  return out;
}

/** The JSON-RPC error object a v0.3 HTTP+JSON error answer is (`{code, message}`), if `body` is one. */
export function v03RestError(body: unknown): { code: number; message: string } | undefined {
  if (!isObj(body) || typeof body.code !== 'number') return undefined;
  return { code: body.code, message: typeof body.message === 'string' ? body.message : '' };
}
