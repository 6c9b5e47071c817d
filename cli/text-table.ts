/**
 * @module cli/text-table
 * The plain-text tables `lost` and `audit` print: columns padded to their widest cell, two
 * spaces apart, the last column left unpadded.
 */

/** Renders `rows` (the header first) as lines of padded columns. */
export function textTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
    )
    .join('\n');
}
