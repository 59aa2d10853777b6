/**
 * The plain-text tables of the CLI's list commands (`zot mcp list`,
 * `zot trust --list`): columns padded to their widest cell and separated by
 * two spaces, the last column unpadded, no trailing spaces, one row a line.
 */
export function renderTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return `${rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd()).join("\n")}\n`;
}
