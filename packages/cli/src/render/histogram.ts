/** Horizontal histogram: equal-width bins over [min, max], one bar per bin scaled to the widest count. */

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

export function histogramBins(values: ArrayLike<number>, bins: number): HistogramBin[] {
  const finite: number[] = [];
  for (let i = 0; i < values.length; i++) { const v = values[i] as number; if (Number.isFinite(v)) finite.push(v); }
  if (finite.length === 0 || bins < 1) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const v of finite) { min = Math.min(min, v); max = Math.max(max, v); }
  if (min === max) return [{ from: min, to: max, count: finite.length }];
  const width = (max - min) / bins;
  const out: HistogramBin[] = Array.from({ length: bins }, (_, i) => ({ from: min + i * width, to: i === bins - 1 ? max : min + (i + 1) * width, count: 0 }));
  for (const v of finite) {
    const i = Math.min(bins - 1, Math.floor((v - min) / width));
    (out[i] as HistogramBin).count++;
  }
  return out;
}

export interface HistogramOptions {
  width: number;
  bins?: number;
  format?: (value: number) => string;
  title?: string;
}

export function renderHistogram(values: ArrayLike<number>, options: HistogramOptions): string {
  const format = options.format ?? ((v: number) => v.toPrecision(4));
  const bins = histogramBins(values, options.bins ?? 12);
  const lines: string[] = [];
  if (options.title) lines.push(options.title);
  if (bins.length === 0) return [...lines, '(no data)'].join('\n');
  const labels = bins.map((b) => `${format(b.from)} - ${format(b.to)}`);
  const labelWidth = labels.map((l) => l.length).reduce((m, x) => Math.max(m, x), -Infinity);
  const counts = bins.map((b) => String(b.count));
  const countWidth = counts.map((c) => c.length).reduce((m, x) => Math.max(m, x), -Infinity);
  const maxCount = bins.map((b) => b.count).reduce((m, x) => Math.max(m, x), -Infinity);
  const barRoom = Math.max(5, options.width - labelWidth - countWidth - 4);
  bins.forEach((b, i) => {
    const len = maxCount === 0 ? 0 : Math.round((b.count / maxCount) * barRoom);
    const bar = '█'.repeat(len) || (b.count > 0 ? '▏' : '');
    lines.push(`${(labels[i] as string).padStart(labelWidth)} │${bar} ${(counts[i] as string).padStart(countWidth)}`);
  });
  return lines.join('\n');
}
