/**
 * One self-contained HTML page: styles, uPlot (read from node_modules and inlined), the chart specs as JSON and the
 * page script (assets/report-page.js) all inline, so the file opens from file:// with no network at all. The page
 * script draws each ChartSpec with uPlot and makes tables of class "sortable" sort by a click on their header.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** How the page script prints a value: ns as us/ms/s, percents, plain numbers. */
export type ChartUnit = 'ns' | '%' | 'count';

export interface ChartSeries {
  label: string;
  /** One value per x (null: no point there); or, to keep a big page small, `points` (x index and value, nulls
   *  elsewhere) or `constant` (one value at every x), which the page script expands. */
  values?: Array<number | null>;
  points?: Array<[number, number]>;
  constant?: number;
  color: string;
  kind: 'line' | 'points' | 'bars';
  dash?: boolean;
  /** Points: diameter in px. */
  size?: number;
  /** false: drawn but left out of the legend (one of several series that the legend names once). */
  legend?: boolean;
}

export interface ChartSpec {
  /** The id of the chart's div (unique in the page). */
  id: string;
  x: number[];
  xLabel: string;
  yLabel: string;
  xUnit: ChartUnit;
  yUnit: ChartUnit;
  series: ChartSeries[];
  /** Names of the x slots 0..n-1 when x is a category (queues, metrics). */
  xCategories?: string[];
  /** Bars: the width of one x slot in x units (1 for categories, the bin width for a histogram). */
  barSlot?: number;
  logX?: boolean;
  yFromZero?: boolean;
  height?: number;
}

export const COLORS = { main: '#2f6db5', warmup: '#e08a00', outlier: '#c8332f', other: '#6a9f3a', grey: '#888888', purple: '#7b4fb0' } as const;
/** Colours of several series of one kind (ranks, queues), in order. */
export const PALETTE = ['#2f6db5', '#e08a00', '#6a9f3a', '#c8332f', '#7b4fb0', '#1a9a9a', '#b5527a', '#7f7f2a'];

export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A chart's place in the page, with its title above it. */
export function chartBox(spec: ChartSpec, title: string, charts: ChartSpec[]): string {
  charts.push(spec);
  return `<figure><figcaption>${esc(title)}</figcaption><div class="chart" id="${esc(spec.id)}"></div></figure>`;
}

export interface Cell {
  text: string;
  /** The raw value sorting uses (and tests read): a number for numeric columns. */
  v?: number | string;
}

export interface Column { label: string; type: 'number' | 'text' }

/** A table whose columns sort on a click; numeric cells carry their raw value in data-v. */
export function sortableTable(columns: Column[], rows: Cell[][], id?: string): string {
  const head = columns.map((c) => `<th data-type="${c.type}" class="${c.type}">${esc(c.label)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => {
    const v = c.v === undefined ? '' : ` data-v="${esc(String(c.v))}"`;
    return `<td class="${columns[i]?.type ?? 'text'}"${v}>${esc(c.text)}</td>`;
  }).join('')}</tr>`).join('\n');
  return `<table class="sortable"${id ? ` id="${esc(id)}"` : ''}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A plain (not sortable) two-column list of facts. */
export function factTable(facts: Array<[string, string]>): string {
  return `<table class="facts">${facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
}

export function notice(text: string): string {
  return `<p class="missing">${esc(text)}</p>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; padding: 12px 20px 40px; max-width: 1200px; color: #222; }
h1 { font-size: 20px; margin: 8px 0 2px; } h2 { font-size: 16px; margin: 26px 0 6px; border-bottom: 1px solid #ddd; }
.sub { color: #555; margin: 0 0 8px; word-break: break-all; }
table { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { word-break: break-all; } table.facts th { text-align: left; font-weight: normal; color: #555; }
table.sortable th { cursor: pointer; background: #f4f4f4; user-select: none; }
th[aria-sort=descending]::after { content: " \\25BC"; } th[aria-sort=ascending]::after { content: " \\25B2"; }
figure { margin: 8px 0 14px; } figcaption { font-weight: 600; margin-bottom: 2px; }
.missing { background: #fff4e0; border-left: 4px solid #e08a00; padding: 6px 10px; }
.bad { color: #c8332f; font-weight: 600; } .good { color: #2c7a2c; font-weight: 600; }
.note { color: #555; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 8px 16px; } .grid figcaption { font-weight: normal; font-size: 12px; }
`;

const require = createRequire(import.meta.url);

/** uPlot's minified script and its stylesheet, as shipped in its npm package (MIT). */
function uplotFiles(): { js: string; css: string } {
  return {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}

function pageScript(): string {
  return readFileSync(new URL('../../../assets/report-page.js', import.meta.url), 'utf8');
}

/** JSON that is safe inside a <script> element (no "</script>", no HTML comment openers). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))
    .replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function htmlPage(page: { title: string; subtitle: string; body: string; charts: ChartSpec[] }): string {
  const uplot = uplotFiles();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)}</title>
<style>${uplot.css}</style><style>${STYLE}</style></head>
<body>
<h1>${esc(page.title)}</h1><p class="sub">${esc(page.subtitle)}</p>
${page.body}
<script type="application/json" id="gsprof-charts">${scriptJson(page.charts)}</script>
<script>${uplot.js}</script>
<script>${pageScript()}</script>
</body></html>
`;
}
