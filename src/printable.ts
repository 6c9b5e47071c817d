/**
 * @module printable
 * Text that came from a client, a peer or a file, made safe to print on a terminal as one line
 * (docs/design.md §9): a pause reason, a principal, a task id, a key id in an error message. Every
 * control character (C0 including newline and tab, DEL, C1), the line and paragraph separators and
 * the bidirectional controls are written as `\uXXXX`, so nothing printed can move the cursor, clear
 * or hide the screen, overwrite a line, start a line of its own, or reorder what is shown.
 */

/** What {@link printable} escapes. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character that could act on a terminal written as its `\uXXXX` escape. */
export function printable(text: string): string {
  UNPRINTABLE.lastIndex = 0;
  if (!UNPRINTABLE.test(text)) return text;
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
