/**
 * @module cli/text-table
 * The plain-text tables `lost` and `audit` print: columns padded to their widest cell, two
 * spaces apart, the last column left unpadded. Cells hold what clients and peers sent (reasons,
 * principals, task ids): each is printed through `printable`, so none can act on the terminal or
 * break its row.
 */
import { printable } from '../src/internal.js';

/** Renders `rows` (the header first) as lines of padded columns. */
export function textTable(table: readonly (readonly string[])[]): string {
  const rows = table.map((row) => row.map(printable));
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
    )
    .join('\n');
}
