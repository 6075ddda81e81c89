/**
 * keyAverages(): torch's key_averages() over a TraceModel, and table() in torch's layout
 * (torch/autograd/profiler_util.py _build_table): right-aligned name column up to 55 wide, 12-wide columns
 * separated by two spaces, times as {:.3f}us|ms|s, footer "Self CPU time total: ...".
 * Host slices carry CPU time; GPU kernel slices carry device time, which is also credited to the host span that
 * launched them (through the ac2g flows: the queue.submit) as self time, and to its ancestors as total time.
 * The device columns keep torch's CUDA names so tools and eyes trained on torch tables read them unchanged.
 * Step spans `ProfilerStep#k` are one row, `ProfilerStep*`, as torch's _rewrite_name makes them.
 */
import type { TraceModel } from '../model/trace.js';

export interface KeyAverage {
  key: string;
  count: number;
  cpuTimeTotalNs: number;
  selfCpuTimeTotalNs: number;
  deviceTimeTotalNs: number;
  selfDeviceTimeTotalNs: number;
  /** Device time credited to host spans that are not user annotations (what torch's footer sums). */
  selfDeviceOfCpuOpsNs: number;
}

export interface TableOptions {
  /** torch names: cpu_time_total, self_cpu_time_total, cuda_time_total, self_cuda_time_total, cpu_time,
   * cuda_time, count (device_* and camelCase spellings work too). Descending. */
  sortBy?: string;
  rowLimit?: number;
  /** Caps the name column (torch: 55). */
  maxNameColumnWidth?: number;
}

export class KeyAverages {
  constructor(readonly rows: KeyAverage[]) {}

  table(options: TableOptions = {}): string {
    return buildTable(this.rows, options);
  }

  toString(): string {
    return this.table();
  }
}

/** torch's key for a span name: every `ProfilerStep#k` is `ProfilerStep*`. */
export function averageKey(name: string): string {
  return name.startsWith('ProfilerStep#') ? 'ProfilerStep*' : name;
}

export function keyAverages(trace: TraceModel): KeyAverages {
  const kind = new Map(trace.tracks.map((t) => [t.id, t.kind]));
  const slices = trace.slices;
  const n = slices.length;
  const parent = new Int32Array(n).fill(-1);
  const childDur = new Float64Array(n);
  const selfDev = new Float64Array(n);
  const totalDev = new Float64Array(n);

  // Nesting per host track (slices are strictly nested per track once recorded).
  const order = [...slices.keys()].filter((i) => kind.get(slices[i]!.track) === 'thread');
  order.sort((a, b) => slices[a]!.track - slices[b]!.track || slices[a]!.ts - slices[b]!.ts || slices[b]!.dur - slices[a]!.dur);
  const stack: number[] = [];
  let track = -1;
  for (const i of order) {
    const s = slices[i]!;
    if (s.track !== track) { stack.length = 0; track = s.track; }
    while (stack.length) {
      const top = slices[stack[stack.length - 1]!]!;
      if (top.ts + top.dur > s.ts || (top.ts === s.ts && top.dur >= s.dur)) break;
      stack.pop();
    }
    const p = stack.length ? stack[stack.length - 1]! : -1;
    parent[i] = p;
    if (p >= 0) childDur[p] = childDur[p]! + s.dur;
    stack.push(i);
  }
  for (const f of trace.flows) {
    const kernel = slices[f.toSlice];
    if (!kernel || kind.get(kernel.track) !== 'gpu_queue') continue;
    selfDev[f.fromSlice] = selfDev[f.fromSlice]! + kernel.dur;
    for (let a = f.fromSlice; a >= 0; a = parent[a]!) totalDev[a] = totalDev[a]! + kernel.dur;
  }

  const rows = new Map<string, KeyAverage>();
  for (let i = 0; i < n; i++) {
    const s = slices[i]!;
    const k = kind.get(s.track);
    if (k !== 'thread' && k !== 'gpu_queue') continue;
    const key = averageKey(s.name);
    let row = rows.get(key);
    if (!row) {
      row = { key, count: 0, cpuTimeTotalNs: 0, selfCpuTimeTotalNs: 0, deviceTimeTotalNs: 0, selfDeviceTimeTotalNs: 0, selfDeviceOfCpuOpsNs: 0 };
      rows.set(key, row);
    }
    row.count++;
    if (k === 'thread') {
      row.cpuTimeTotalNs += s.dur;
      row.selfCpuTimeTotalNs += Math.max(0, s.dur - childDur[i]!);
      row.deviceTimeTotalNs += totalDev[i]!;
      row.selfDeviceTimeTotalNs += selfDev[i]!;
      if (s.category !== 'user_annotation') row.selfDeviceOfCpuOpsNs += selfDev[i]!;
    } else {
      row.deviceTimeTotalNs += s.dur;
      row.selfDeviceTimeTotalNs += s.dur;
    }
  }
  return new KeyAverages([...rows.values()]);
}

const SORT_KEYS: Record<string, (r: KeyAverage) => number> = {
  cpu_time_total: (r) => r.cpuTimeTotalNs,
  self_cpu_time_total: (r) => r.selfCpuTimeTotalNs,
  device_time_total: (r) => r.deviceTimeTotalNs,
  self_device_time_total: (r) => r.selfDeviceTimeTotalNs,
  cpu_time: (r) => r.cpuTimeTotalNs / r.count,
  device_time: (r) => r.deviceTimeTotalNs / r.count,
  count: (r) => r.count,
};

function sortKey(name: string): (r: KeyAverage) => number {
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/cuda|gpu|xpu/g, 'device');
  const fn = SORT_KEYS[snake];
  if (!fn) throw new Error(`keyAverages().table: unknown sortBy '${name}' (use one of ${Object.keys(SORT_KEYS).join(', ')}, or the cuda_ spellings)`);
  return fn;
}

/** torch's _format_time, from ns. */
export function formatTime(ns: number): string {
  const us = ns / 1000;
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)}s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)}ms`;
  return `${us.toFixed(3)}us`;
}

function formatShare(part: number, total: number): string {
  if (total === 0) return 'NaN';
  return `${((part * 100) / total).toFixed(2)}%`;
}

function buildTable(input: KeyAverage[], options: TableOptions): string {
  if (input.length === 0) return '';
  const rowLimit = options.rowLimit ?? 100;
  const maxName = options.maxNameColumnWidth ?? 55;
  let rows = input;
  if (options.sortBy) {
    const key = sortKey(options.sortBy);
    // Stable, descending: equal keys keep first-seen order, as Python's sorted(reverse=True).
    rows = [...input].sort((a, b) => key(b) - key(a));
  }
  const hasDevice = rows.some((r) => r.selfDeviceTimeTotalNs > 0);
  let longestName = 0;
  for (const r of rows) longestName = Math.max(longestName, r.key.length);
  const nameWidth = Math.min(longestName + 4, maxName);
  const headers = ['Name', 'Self CPU %', 'Self CPU', 'CPU total %', 'CPU total', 'CPU time avg'];
  if (hasDevice) headers.push('Self CUDA', 'Self CUDA %', 'CUDA total', 'CUDA time avg');
  headers.push('# of Calls');
  const widths = [nameWidth, ...headers.slice(1).map(() => 12)];
  const fmtRow = (cells: string[]): string => cells.map((c, i) => `${c.padStart(widths[i]!)}  `).join('');
  const sep = widths.map((w) => `${'-'.repeat(w)}  `).join('');

  let sumSelfCpu = 0;
  let sumSelfDevice = 0;
  let sumKernel = 0;
  for (const r of rows) {
    sumSelfCpu += r.selfCpuTimeTotalNs;
    sumSelfDevice += r.selfDeviceOfCpuOpsNs;
    sumKernel += r.selfDeviceTimeTotalNs - r.selfDeviceOfCpuOpsNs;
  }
  // Without launch links (no CPU activity) the device total is the kernels' own time.
  if (sumSelfDevice === 0) sumSelfDevice = sumKernel;

  const out: string[] = [sep, fmtRow(headers), sep];
  let shown = 0;
  for (const r of rows) {
    if (shown === rowLimit) break;
    shown++;
    let name = r.key;
    if (name.length >= maxName - 3) name = `${name.slice(0, maxName - 3)}...`;
    const cells = [
      name,
      formatShare(r.selfCpuTimeTotalNs, sumSelfCpu),
      formatTime(r.selfCpuTimeTotalNs),
      formatShare(r.cpuTimeTotalNs, sumSelfCpu),
      formatTime(r.cpuTimeTotalNs),
      formatTime(r.cpuTimeTotalNs / r.count),
    ];
    if (hasDevice) {
      cells.push(
        formatTime(r.selfDeviceTimeTotalNs),
        formatShare(r.selfDeviceTimeTotalNs, sumSelfDevice),
        formatTime(r.deviceTimeTotalNs),
        formatTime(r.deviceTimeTotalNs / r.count),
      );
    }
    cells.push(String(r.count));
    out.push(fmtRow(cells));
  }
  out.push(sep);
  out.push(`Self CPU time total: ${formatTime(sumSelfCpu)}`);
  if (hasDevice) out.push(`Self CUDA time total: ${formatTime(sumSelfDevice)}`);
  return `${out.join('\n')}\n`;
}
