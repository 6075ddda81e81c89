/** Parses env selections such as `0-7`, `3`, `0-3,10,12-13` into sorted unique indices. */
import { CliError } from '../errors.js';

export function parseIndexRange(text: string, flag = '--envs'): number[] {
  const out = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) throw new CliError(flag, `'${part}' is not an index or a range like 0-7`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new CliError(flag, `range ${part} runs backwards`);
    if (to - from > 1_000_000) throw new CliError(flag, `range ${part} is too large`);
    for (let i = from; i <= to; i++) out.add(i);
  }
  if (out.size === 0) throw new CliError(flag, 'no index given');
  return [...out].sort((a, b) => a - b);
}

/** Parses a sweep such as `1..32768` (doubling), `64,256,1024`, or a single number. */
export function parseSweep(text: string, flag = '--n-envs'): number[] {
  const m = /^(\d+)\s*\.\.\s*(\d+)$/.exec(text.trim());
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (from < 1 || to < from) throw new CliError(flag, `'${text}' needs 1 <= from <= to`);
    const out: number[] = [];
    for (let n = from; n <= to; n *= 2) out.push(n);
    if (out[out.length - 1] !== to) out.push(to);
    return out;
  }
  const values = text.split(',').map((p) => p.trim()).filter(Boolean).map((p) => {
    if (!/^\d+$/.test(p) || Number(p) < 1) throw new CliError(flag, `'${p}' is not a positive whole number`);
    return Number(p);
  });
  if (values.length === 0) throw new CliError(flag, 'no value given');
  return [...new Set(values)].sort((a, b) => a - b);
}
