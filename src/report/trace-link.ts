/**
 * @module report/trace-link
 * Links out of the report to a trace backend (docs/design.md §12): `report --trace-url TEMPLATE`
 * (or `A2A_REPLAY_TRACE_URL`), e.g. `http://jaeger:16686/trace/{traceId}`, makes every span cell a
 * link to its trace. `{traceId}` and `{spanId}` are replaced; nothing else of the template is read.
 */
import { escapeHtml } from './escape-html.js';

/** The template's URL for a span, or null when there is no template. */
export function traceUrlOf(template: string | undefined, traceId: string, spanId: string): string | null {
  if (template === undefined || template === '') return null;
  return template.replaceAll('{traceId}', traceId).replaceAll('{spanId}', spanId);
}

/**
 * Why `template` cannot be a trace URL template, or undefined when it can: an absolute http(s) URL
 * naming `{traceId}`.
 */
export function traceUrlProblem(template: string): string | undefined {
  if (!template.includes('{traceId}')) return 'it must name {traceId}, e.g. http://jaeger:16686/trace/{traceId}';
  let url: URL;
  try {
    url = new URL(template.replaceAll('{traceId}', '0').replaceAll('{spanId}', '0'));
  } catch {
    return 'it is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `its scheme is ${url.protocol}, not http: or https:`;
  return undefined;
}

/** A span as a table cell's HTML: `trace T span S`, a link to the trace when a template is given. */
export function traceCell(traceId: string | null, spanId: string | null, template: string | undefined): string {
  if (!traceId || !spanId) return '-';
  const text = escapeHtml(`trace ${traceId} span ${spanId}`);
  const href = traceUrlOf(template, traceId, spanId);
  return href === null ? text : `<a class="trace" href="${escapeHtml(href)}" rel="noreferrer">${text}</a>`;
}

/** A lost item's link to its trace, followed by ` · `; nothing without a template or a span. */
export function traceItem(template: string | undefined, traceId: string | null, spanId: string | null): string {
  const href = traceId && spanId ? traceUrlOf(template, traceId, spanId) : null;
  return href === null ? '' : `<a class="trace" href="${escapeHtml(href)}" rel="noreferrer">trace</a> · `;
}
