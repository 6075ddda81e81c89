/**
 * convert keeps what both formats carry (issue 12): a Kineto trace's rank (distributedInfo) and devices
 * (deviceProperties) survive Kineto -> pftrace -> Kineto, twice. Before, every JSON written said rank 0 of 1
 * and no devices; and a counter's name stays as read, where each JSON pass appended " value". (Process labels,
 * GPU tids, flow categories and arg types are not kept yet.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

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
