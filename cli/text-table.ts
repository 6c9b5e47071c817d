/**
 * @module cli/text-table
 * The plain-text tables `lost` and `audit` print: columns padded to their widest cell, two
 * spaces apart, the last column left unpadded. Cells hold what clients and peers sent (reasons,
 * principals, task ids): each is printed through `printable`, so none can act on the terminal or
 * break its row. A table of any number of rows is measured in one pass and written line by line
 * in a second (its cells made again), never held as one text.
 */
import { versionsLabel } from '../src/public/observe.js';
import { printable } from '../src/public/core.js';

/**
 * The lines of the table of `header` and one row per item of `items` (`cells` gives its cells,
 * called twice per item: once to measure, once to write).
 */
export function* textTableLines<T>(
  header: readonly string[],
  items: readonly T[],
  cells: (item: T) => readonly string[],
): Generator<string> {
  const widths = header.map((cell) => printable(cell).length);
  for (const item of items) {
    const row = cells(item);
    for (let column = 0; column < widths.length; column++) {
      const width = printable(row[column] ?? '').length;
      if (width > widths[column]!) widths[column] = width;
    }
  }
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) =>
        column === row.length - 1 ? printable(cell) : printable(cell).padEnd(widths[column] ?? 0),
      )
      .join('  ');
  yield line(header);
  for (const item of items) yield line(cells(item));
}

/** Renders `rows` (the header first) as lines of padded columns. */
export function textTable(table: readonly (readonly string[])[]): string {
  const [header = [], ...rows] = table;
  return [...textTableLines(header, rows, (row) => row)].join('\n');
}

/**
 * `header` and `cells` with an `A2A` column after the first when the rows name their versions (a
 * recording with a version other than 1.0, docs/design.md §14.10): a v1.0 listing reads as before.
 */
export function withVersionColumn<T>(
  rows: readonly T[],
  header: readonly string[],
  cells: (row: T) => string[],
  versionsOf: (row: T) => readonly string[] | undefined,
): [string[], (row: T) => string[]] {
  if (!rows.some((r) => versionsOf(r) !== undefined)) return [[...header], cells];
  return [
    [header[0] ?? 'TASK', 'A2A', ...header.slice(1)],
    (row) => {
      const [first = '', ...rest] = cells(row);
      const versions = versionsOf(row);
      return [first, versions === undefined ? '-' : versionsLabel(versions), ...rest];
    },
  ];
}
