import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diff, openTrace, type TraceDb } from '../../src/index.js';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';

describe.skipIf(!hasShared())('diff on the HTA trace_compare pair', () => {
  let base: TraceDb;
  let test: TraceDb;
  beforeAll(async () => {
    base = await openTrace(sharedPath('traces', 'pytorch-kineto', 'trace_compare__base__base.json.gz'));
    test = await openTrace(sharedPath('traces', 'pytorch-kineto', 'trace_compare__test__test.json.gz'));
  });
  afterAll(async () => { await base.close(); await test.close(); });

  it("gives HTA's documented ops diff for iteration 1010", async () => {
    const d = await diff(base, test, { iteration: 1010 });
    expect({ added: d.ops.added, deleted: d.ops.deleted, increased: d.ops.increased, decreased: d.ops.decreased, unchanged: d.ops.unchanged }).toEqual({
      added: ['AddmmBackward0', 'All2All_Pooled_Req', 'CatBackward0'],
      deleted: ['nccl:all_reduce'],
      increased: [],
      decreased: [],
      unchanged: ['ProfilerStep#1010', 'aten::as_strided', 'aten::empty', 'cudaEventQuery', 'cudaLaunchKernel'],
    });
    const step = d.ops.rows.find((r) => r.name === 'ProfilerStep#1010')!;
    expect(step).toMatchObject({ controlCount: 1, testCount: 1, controlDurNs: 122_149_000 });
    expect(d.ops.rows.find((r) => r.name === 'nccl:all_reduce')).toMatchObject({ controlCount: 1, controlDurNs: 67_000, testCount: 0, change: 'deleted' });
    // GPU side: the one kernel launched in that iteration is gone from the test trace (HTA: {"-": 1}).
    expect(d.kernels.rows.map((r) => r.change)).toEqual(['deleted']);
  });

  it('without an iteration compares whole traces: all_reduce went from 2 to 1', async () => {
    const d = await diff(base, test);
    expect(d.ops.decreased).toContain('nccl:all_reduce');
    expect(d.ops.rows.find((r) => r.name === 'nccl:all_reduce')).toMatchObject({ controlCount: 2, testCount: 1, diffCount: -1 });
  });
});
