import { describe, expect, it } from 'vitest';
import { emptyTrace, type TraceModel } from '../../src/model/trace.js';
import { formatTime, keyAverages } from '../../src/record/index.js';

function stepTrace(): TraceModel {
  const t = emptyTrace({ baseTimeNs: 0n, traceName: 't', producer: 'p', hostname: 'h', pid: 1, deviceProperties: [], syncEachStep: false, run: {} });
  t.tracks.push({ id: 1, kind: 'thread', name: 'host', pid: 1, tid: 1 }, { id: 2, kind: 'gpu_queue', name: 'queue 0', pid: 2, tid: 0 });
  t.slices.push(
    { track: 1, name: 'ProfilerStep#0', category: 'user_annotation', ts: 0, dur: 1_000_000 },
    { track: 1, name: 'physics', category: 'user_annotation', ts: 100_000, dur: 500_000 },
    { track: 1, name: 'queue.submit', category: 'cuda_runtime', ts: 200_000, dur: 50_000 },
    { track: 2, name: 'kinematics', category: 'kernel', ts: 300_000, dur: 200_000 },
    { track: 2, name: 'solve', category: 'kernel', ts: 500_000, dur: 300_000 },
  );
  t.flows.push({ id: 1, fromSlice: 2, toSlice: 3, category: 'ac2g' }, { id: 2, fromSlice: 2, toSlice: 4, category: 'ac2g' });
  return t;
}

const SEP = `-----------------  ${'------------  '.repeat(10)}`;

describe('keyAverages().table()', () => {
  it("prints torch's columns, right-aligned names, self/total CPU and device time credited through the submit", () => {
    expect(keyAverages(stepTrace()).table()).toBe([
      SEP,
      '             Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls  ',
      SEP,
      '    ProfilerStep*        50.00%     500.000us       100.00%       1.000ms       1.000ms       0.000us         0.00%     500.000us     500.000us             1  ',
      '          physics        45.00%     450.000us        50.00%     500.000us     500.000us       0.000us         0.00%     500.000us     500.000us             1  ',
      '     queue.submit         5.00%      50.000us         5.00%      50.000us      50.000us     500.000us       100.00%     500.000us     500.000us             1  ',
      '       kinematics         0.00%       0.000us         0.00%       0.000us       0.000us     200.000us        40.00%     200.000us     200.000us             1  ',
      '            solve         0.00%       0.000us         0.00%       0.000us       0.000us     300.000us        60.00%     300.000us     300.000us             1  ',
      SEP,
      'Self CPU time total: 1.000ms',
      'Self CUDA time total: 500.000us',
      '',
    ].join('\n'));
  });

  it('sortBy (torch spellings and camelCase) sorts descending; rowLimit cuts rows', () => {
    const lines = (sortBy: string, rowLimit?: number): string[] =>
      keyAverages(stepTrace()).table({ sortBy, ...(rowLimit ? { rowLimit } : {}) }).split('\n').slice(3, -4).map((l) => l.trim().split(/\s+/)[0]!);
    expect(lines('self_cuda_time_total', 3)).toEqual(['queue.submit', 'solve', 'kinematics']);
    expect(lines('cpuTimeTotal')).toEqual(['ProfilerStep*', 'physics', 'queue.submit', 'kinematics', 'solve']);
    expect(lines('self_cpu_time_total', 2)).toEqual(['ProfilerStep*', 'physics']);
    expect(() => keyAverages(stepTrace()).table({ sortBy: 'flops' })).toThrow(/unknown sortBy 'flops'/);
  });

  it('aggregates calls per name; without device time there are no CUDA columns', () => {
    const t = stepTrace();
    t.slices = [
      { track: 1, name: 'encode', category: 'cuda_runtime', ts: 0, dur: 1500 },
      { track: 1, name: 'encode', category: 'cuda_runtime', ts: 2000, dur: 2500 },
    ];
    t.flows = [];
    const text = keyAverages(t).table();
    expect(text.split('\n')[1]).toBe('      Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  ');
    expect(text.split('\n')[3]).toBe('    encode       100.00%       4.000us       100.00%       4.000us       2.000us             2  ');
    expect(text).not.toMatch(/CUDA/);
    expect(text.endsWith('Self CPU time total: 4.000us\n')).toBe(true);
  });

  it("groups every ProfilerStep#k into one row 'ProfilerStep*', as torch does", () => {
    const t = stepTrace();
    t.slices = [
      { track: 1, name: 'ProfilerStep#3', category: 'user_annotation', ts: 0, dur: 1000 },
      { track: 1, name: 'ProfilerStep#4', category: 'user_annotation', ts: 1000, dur: 3000 },
      { track: 1, name: 'ProfilerStep#40', category: 'user_annotation', ts: 4000, dur: 2000 },
    ];
    t.flows = [];
    const rows = keyAverages(t).rows;
    expect(rows.map((r) => [r.key, r.count, r.cpuTimeTotalNs])).toEqual([['ProfilerStep*', 3, 6000]]);
  });

  it('truncates names longer than the 55-wide column with ...', () => {
    const t = stepTrace();
    const long = 'x'.repeat(70);
    t.slices = [{ track: 1, name: long, category: 'cpu_op', ts: 0, dur: 10 }];
    t.flows = [];
    const row = keyAverages(t).table().split('\n')[3]!;
    expect(row.startsWith(`${'x'.repeat(52)}...  `)).toBe(true);
  });

  it('formats times as torch does', () => {
    expect([formatTime(999), formatTime(1_234_567), formatTime(2_500_000_000)]).toEqual(['0.999us', '1.235ms', '2.500s']);
  });
});
