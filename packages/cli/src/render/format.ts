/** Number formats shared by the tables: thousands separators, fixed decimals, human durations. */

export function thousands(value: number, decimals = 0): string {
  if (!Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Nanoseconds as torch prints times: `{:.3f}us|ms|s` (and ns below a microsecond). */
export function duration(ns: number): string {
  if (!Number.isFinite(ns)) return '-';
  const abs = Math.abs(ns);
  if (abs < 1e3) return `${ns.toFixed(0)}ns`;
  if (abs < 1e6) return `${(ns / 1e3).toFixed(3)}us`;
  if (abs < 1e9) return `${(ns / 1e6).toFixed(3)}ms`;
  return `${(ns / 1e9).toFixed(3)}s`;
}

export function percent(fraction: number, decimals = 1): string {
  if (!Number.isFinite(fraction)) return '-';
  return `${(fraction * 100).toFixed(decimals)}%`;
}

/** A signed ratio as a change: 1.23 -> "+23.0%", 0.9 -> "-10.0%". */
export function change(ratio: number): string {
  if (!Number.isFinite(ratio)) return '-';
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}
