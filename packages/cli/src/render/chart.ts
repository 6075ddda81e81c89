/** Line charts through asciichart, downsampled to the terminal width first (asciichart draws one column per
 * point and never resamples). */
import { plot, blue, green, red, magenta, yellow, cyan } from 'asciichart';

const palette = [blue, red, green, magenta, yellow, cyan];

/** Reduces a series to at most `columns` points, keeping each bucket's maximum (spikes stay visible). */
export function downsample(series: ArrayLike<number>, columns: number, reduce: 'max' | 'mean' = 'max'): number[] {
  const n = series.length;
  if (n <= columns) return Array.from(series);
  const out: number[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * n) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * n) / columns));
    let acc = reduce === 'max' ? -Infinity : 0;
    for (let i = from; i < to; i++) {
      const v = series[i] as number;
      acc = reduce === 'max' ? Math.max(acc, v) : acc + v;
    }
    out.push(reduce === 'max' ? acc : acc / (to - from));
  }
  return out;
}

export interface ChartOptions {
  /** Total width available, labels included. */
  width: number;
  height?: number;
  color: boolean;
  title?: string;
  /** One legend label per series. */
  labels?: string[];
  format?: (value: number) => string;
  /** Repeat points so that a short series spans the width (e.g. 8 envs drawn 8 columns wide each). */
  stretch?: boolean;
  /** Text under the left and right ends of the x axis. */
  xLabels?: [string, string];
}

/** Repeats each point k times (k = columns / length, rounded down) so short series fill the chart. */
export function stretchSeries(series: number[], columns: number): number[] {
  const k = Math.floor(columns / Math.max(1, series.length));
  if (k <= 1) return series;
  return series.flatMap((v) => Array<number>(k).fill(v));
}

export function renderChart(series: Array<ArrayLike<number>>, options: ChartOptions): string {
  const format = options.format ?? ((v: number) => v.toPrecision(4));
  const nonEmpty = series.filter((s) => s.length > 0);
  if (nonEmpty.length === 0) return `${options.title ? `${options.title}\n` : ''}(no data)`;
  // Label column: asciichart pads labels to the widest formatted value plus the axis glyphs.
  let min = Infinity;
  let max = -Infinity;
  for (const s of nonEmpty) for (let i = 0; i < s.length; i++) { const v = s[i] as number; if (Number.isFinite(v)) { min = Math.min(min, v); max = Math.max(max, v); } }
  if (!Number.isFinite(min)) return `${options.title ? `${options.title}\n` : ''}(no finite data)`;
  const height = options.height ?? 10;
  // Every tick label, not only the extremes, decides the label column (asciichart pads to what it is given).
  let widest = 0;
  for (let i = 0; i <= height; i++) widest = Math.max(widest, format(min + ((max - min) * i) / height).length);
  const labelWidth = widest + 3;
  const columns = Math.max(10, options.width - labelWidth - 1);
  const data = nonEmpty.map((s) => {
    const fitted = downsample(s, columns).map((v) => (Number.isFinite(v) ? v : min));
    return options.stretch ? stretchSeries(fitted, columns) : fitted;
  });
  const padded = (v: number): string => format(v).padStart(widest);
  const body = plot(data.length === 1 ? (data[0] as number[]) : data, {
    height,
    format: padded,
    ...(options.color ? { colors: data.map((_, i) => palette[i % palette.length] as string) } : {}),
    ...(min === max ? { min: min - 1, max: max + 1 } : {}),
  });
  const lines: string[] = [];
  if (options.title) lines.push(options.title);
  lines.push(body);
  if (options.xLabels) {
    const drawn = data.map((d) => d.length).reduce((m, x) => Math.max(m, x), -Infinity);
    const [left, right] = options.xLabels;
    lines.push(`${' '.repeat(labelWidth - 1)}${left}${right.padStart(Math.max(1, drawn - left.length))}`);
  }
  if (options.labels && options.labels.length > 0) {
    const glyphs = options.labels.map((label, i) => {
      const color = palette[i % palette.length] as string;
      return options.color ? `${color}──\u001b[0m ${label}` : `${['──', '╌╌', '··', '══'][i % 4]} ${label}`;
    });
    lines.push(glyphs.join('   '));
  }
  return lines.join('\n');
}
