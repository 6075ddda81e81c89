/** Tables through cli-table3. Without colour its header/border styles are cleared, so piped output is plain
 * text that snapshots and greps reliably. */
import Table from 'cli-table3';

export interface TableOptions {
  color: boolean;
  /** Per-column alignment; numbers read best right-aligned. */
  align?: Array<'left' | 'right' | 'center'>;
  /** Maximum width of a column's text before it is cut with an ellipsis. */
  maxColWidth?: number;
}

function clip(text: string, max: number | undefined): string {
  if (!max || text.length <= max) return text;
  return `${text.slice(0, Math.max(1, max - 1))}…`;
}

export function renderTable(head: string[], rows: Array<Array<string | number>>, options: TableOptions): string {
  // Colour is applied here rather than through cli-table3's styles, whose colour library also obeys NO_COLOR
  // and TTY detection on its own; the caller has already decided.
  const table = new Table({
    head: options.color ? head.map((h) => `\u001b[36m${h}\u001b[39m`) : head,
    style: { head: [], border: [] },
    // No rule between body rows: long tables stay readable and half as tall.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...(options.align ? { colAligns: options.align } : {}),
  });
  for (const row of rows) table.push(row.map((cell) => clip(String(cell), options.maxColWidth)));
  return table.toString();
}

/** Markdown table (GitHub flavour), for --format markdown and $GITHUB_STEP_SUMMARY. */
export function renderMarkdownTable(head: string[], rows: Array<Array<string | number>>, align?: Array<'left' | 'right'>): string {
  const esc = (s: string | number): string => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [`| ${head.map(esc).join(' | ')} |`];
  lines.push(`|${head.map((_, i) => (align?.[i] === 'right' ? ' ---: ' : ' --- ')).join('|')}|`);
  for (const row of rows) lines.push(`| ${row.map(esc).join(' | ')} |`);
  return lines.join('\n');
}

/** CSV (RFC 4180 quoting). */
export function renderCsv(head: string[], rows: Array<Array<unknown>>): string {
  const cell = (v: unknown): string => {
    const s = v === null || v === undefined ? '' : typeof v === 'bigint' ? v.toString() : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [head, ...rows].map((r) => r.map(cell).join(',')).join('\n');
}
