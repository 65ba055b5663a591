import type { CliContext } from './context.js';

/** Text cells padded to their column's width, two spaces apart, one row a line (the first is the header). */
export function writeTable(ctx: CliContext, table: readonly (readonly string[])[]): void {
  if (table.length === 0) return;
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table)
    ctx.stdout.write(
      `${row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}
