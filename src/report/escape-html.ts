/**
 * @module report/escape-html
 * Text made safe for the HTML report (docs/design.md §12): markup characters escaped, and the
 * bidirectional controls shown as their `\uXXXX` escapes.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The bidirectional controls: a browser reorders the text around them (U+202E shows
 * `kcehc` as `check`), so they are shown as their `\uXXXX` escapes instead.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text safe in HTML content and attribute values, its bidirectional controls shown as `\uXXXX`. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
    .replace(BIDI, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
