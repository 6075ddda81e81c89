/**
 * convert keeps what both formats carry (issue 12): a Kineto trace's rank (distributedInfo) and devices
 * (deviceProperties) survive Kineto -> pftrace -> Kineto, twice. Before, every JSON written said rank 0 of 1
 * and no devices; and a counter's name stays as read, where each JSON pass appended " value". Process labels,
 * the pid and tid of a GPU stream, each flow's category and name, the scope of instants and args with their
 * structure and types come back as written, through JSON alone and through pftrace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { convertChain, ensureBuilt, gsprof, tempDir } from './support/cli.js';

const KINETO = {
  schemaVersion: 1,
  distributedInfo: { backend: 'nccl', rank: 3, world_size: 8 },
  deviceProperties: [{ id: 0, name: 'NVIDIA H100', totalGlobalMem: 85000000000 }],
  traceEvents: [
    { ph: 'M', name: 'process_name', pid: 1, args: { name: 'python' } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 11, ts: 1000, dur: 50 },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 11, ts: 1010, dur: 5, args: { correlation: 77 } },
    { ph: 'X', cat: 'kernel', name: 'gemm', pid: 0, tid: 7, ts: 1020, dur: 30, args: { stream: 7, correlation: 77 } },
    { ph: 'C', name: 'mem', pid: 1, ts: 1000, args: { bytes: 5 } },
  ],
};

beforeAll(() => { ensureBuilt(); });

it('a Kineto trace keeps its rank and devices through two pftrace round trips', async () => {
  const dir = tempDir();
  const env = { GSPROF_NO_CACHE: '1' };
  writeFileSync(join(dir, 'k.json'), JSON.stringify(KINETO));
  const chain = ['k.json', 'a.pftrace', 'b.json', 'c.pftrace', 'd.json'];
  for (let i = 1; i < chain.length; i++) {
    const r = await gsprof(['convert', join(dir, chain[i - 1]!), join(dir, chain[i]!)], { env });
    expect(r.code, r.stderr).toBe(0);
  }
  for (const out of ['b.json', 'd.json']) {
    const j = JSON.parse(readFileSync(join(dir, out), 'utf8')) as typeof KINETO;
    expect(j.distributedInfo, out).toEqual(KINETO.distributedInfo);
    expect(j.deviceProperties, out).toEqual(KINETO.deviceProperties);
  }
  // the counter keeps its name, "mem bytes", pass after pass (it grew " value" on each JSON pass)
  for (const f of ['k.json', 'b.json', 'd.json']) {
    const c = await gsprof(['query', join(dir, f), 'select name from counter_track', '--format', 'csv'], { env });
    expect(c.stdout.trim().split('\n'), f).toEqual(['name', 'mem bytes']);
  }
  // and summary on the round-tripped file still finds the kernel
  const s = await gsprof(['query', join(dir, 'd.json'), "select count(*) as n from slice where name = 'gemm'", '--format', 'csv'], { env });
  expect(s.stdout.trim().split('\n')).toEqual(['n', '1']);
});

/** A Kineto-shaped trace with what the first conversions lost; its events are compared with what comes back. */
const MM_ARGS = {
  'Input Dims': [[2, 3], [3, 4], []], 'Input type': ['float', 'float', 'Scalar'], 'Concrete Inputs': ['', '', '1'],
  'Sequence number': 5, 'Record function id': 0, 'est. achieved occupancy %': 75.5, 'Ev Idx': 3,
  'Is Leaf': true, 'requires grad': false, alpha: 2.5, extra: { source: { file: 'a.py', line: 7 }, 'tags.v1': ['x'], none: null, opts: {} },
};
const GEMM_ARGS = { stream: 7, correlation: 77, grid: [4, 1, 1], block: [128, 1, 1], 'blocks per SM': 0.25, 'est. achieved occupancy %': 50 };
const RICH = {
  schemaVersion: 1,
  traceEvents: [
    { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'python' } },
    { ph: 'M', name: 'process_name', pid: 0, tid: 0, args: { name: 'GPU 0' } },
    { ph: 'M', name: 'process_labels', pid: 0, tid: 0, args: { labels: 'H100, CUDA 12.4' } },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 11, ts: 1000, dur: 50, args: MM_ARGS },
    { ph: 'X', cat: 'cpu_op', name: 'MmBackward0', pid: 1, tid: 12, ts: 1200, dur: 40 },
    { ph: 's', cat: 'fwdbwd', name: 'fwdbwd', id: 5, pid: 1, tid: 11, ts: 1000 },
    { ph: 'f', cat: 'fwdbwd', name: 'fwdbwd', id: 5, pid: 1, tid: 12, ts: 1200, bp: 'e' },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 11, ts: 1010, dur: 5, args: { correlation: 77 } },
    { ph: 'X', cat: 'kernel', name: 'gemm', pid: 0, tid: 7, ts: 1020, dur: 30, args: GEMM_ARGS },
    { ph: 's', cat: 'ac2g', name: 'ac2g', id: 77, pid: 1, tid: 11, ts: 1010 },
    { ph: 'f', cat: 'ac2g', name: 'ac2g', id: 77, pid: 0, tid: 7, ts: 1020, bp: 'e' },
    { ph: 'i', s: 'p', cat: 'marker', name: 'checkpoint saved', pid: 1, tid: 11, ts: 1100 },
    { ph: 'i', s: 'g', cat: 'marker', name: 'epoch 1', pid: 1, tid: 11, ts: 1150 },
  ],
};

interface Event { ph: string; name: string; cat?: string; pid: number; tid?: number; s?: string; id?: number; args?: Record<string, unknown> }

describe('convert keeps what Kineto writes', () => {
  /** The events each route gives back: JSON -> JSON, and JSON -> pftrace -> JSON -> pftrace -> JSON. */
  const routes = new Map<string, Event[]>();

  beforeAll(async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'k.json'), JSON.stringify(RICH));
    for (const chain of [['k.json', 'direct.json'], ['k.json', 'a.pftrace', 'b.json', 'c.pftrace', 'twice.json']]) {
      routes.set(chain[chain.length - 1]!, await convertChain<Event>(dir, chain));
    }
  });

  const eachRoute = (check: (events: Event[], route: string) => void) => () => {
    expect(routes.size).toBe(2);
    for (const [route, events] of routes) check(events, route);
  };
  const named = (events: Event[], name: string, ph = 'X'): Event => events.find((e) => e.name === name && e.ph === ph)!;

  it('process labels', eachRoute((events, route) => {
    const labels = events.filter((e) => e.ph === 'M' && e.name === 'process_labels');
    expect(labels.map((e) => [e.pid, e.args]), route).toEqual([[0, { labels: 'H100, CUDA 12.4' }]]);
  }));

  it('the pid and tid of a kernel\'s stream', eachRoute((events, route) => {
    expect(named(events, 'gemm'), route).toMatchObject({ pid: 0, tid: 7 });
  }));

  it('each flow\'s category and name, between the same threads', eachRoute((events, route) => {
    const flows = events.filter((e) => e.ph === 's' || e.ph === 'f').map((e) => [e.ph, e.cat, e.name, e.pid, e.tid]);
    expect(flows.sort(), route).toEqual([
      ['f', 'ac2g', 'ac2g', 0, 7], ['f', 'fwdbwd', 'fwdbwd', 1, 12], ['s', 'ac2g', 'ac2g', 1, 11], ['s', 'fwdbwd', 'fwdbwd', 1, 11],
    ]);
  }));

  it('args with their structure and types: arrays, objects, booleans, reals, keys with dots', eachRoute((events, route) => {
    expect(named(events, 'aten::mm').args, route).toEqual(MM_ARGS);
    expect(named(events, 'gemm').args, route).toEqual(GEMM_ARGS);
  }));

  it('args in the order they were written', eachRoute((events, route) => {
    expect(Object.keys(named(events, 'aten::mm').args!), route).toEqual(Object.keys(MM_ARGS));
    expect(Object.keys(named(events, 'gemm').args!), route).toEqual(Object.keys(GEMM_ARGS));
  }));

  it('args in the order they were written in a trace large enough to be stored out of read order', async () => {
    // DuckDB keeps no row order in an on-disk import (preserve_insertion_order off) once a table spans row groups.
    const dir = tempDir();
    const args = (i: number) => ({ 'External id': i, 'Input Dims': [[i, 3], []], 'Input type': ['float', ''], 'Sequence number': i, 'Ev Idx': i });
    const traceEvents = Array.from({ length: 40_000 }, (_, i) => ({ ph: 'X', cat: 'cpu_op', name: `op${i}`, pid: 1, tid: 1, ts: i * 10, dur: 5, args: args(i) }));
    writeFileSync(join(dir, 'big.json'), JSON.stringify({ traceEvents }));
    const r = await gsprof(['convert', join(dir, 'big.json'), join(dir, 'out.json')], { env: { GSPROF_NO_CACHE: '1' } });
    expect(r.code, r.stderr).toBe(0);
    const out = (JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as { traceEvents: Event[] }).traceEvents.filter((e) => e.ph === 'X');
    expect(out).toHaveLength(traceEvents.length);
    const wrong = out.filter((e) => JSON.stringify(e.args) !== JSON.stringify(args(Number(e.name.slice(2)))));
    expect(wrong.map((e) => e.name).slice(0, 3)).toEqual([]);
  });

  it('the scope of process and global instants', eachRoute((events, route) => {
    expect(named(events, 'checkpoint saved', 'i'), route).toMatchObject({ s: 'p', pid: 1, cat: 'marker' });
    expect(named(events, 'epoch 1', 'i'), route).toMatchObject({ s: 'g', cat: 'marker' });
  }));
});
