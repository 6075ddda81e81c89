import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as TraceEngine from '@paulirish/trace_engine';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { chromeMicros as formatMicros, writeChromeTrace } from '../../src/export/index.js';
import { BASE_TIME_NS, GPU_PID, HOST_PID, KERNELS, overlappingTrace, sampleTrace, TRACK } from './fixtures.js';

interface ChromeEvent {
  ph: string; name: string; cat?: string; pid: number; tid: number; ts: number; dur?: number;
  id?: number; bp?: string; s?: string; args?: Record<string, unknown>;
}

const dir = mkdtempSync(join(tmpdir(), 'gsprof-chrome-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the parsed file, whose fields the tests check one by one
async function written(name: string, trace = sampleTrace()): Promise<{ text: string; json: any; events: ChromeEvent[] }> {
  const path = join(dir, name);
  await writeChromeTrace(trace, path);
  const raw = readFileSync(path);
  const text = name.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const json = JSON.parse(text);
  return { text, json, events: json.traceEvents as ChromeEvent[] };
}

/** The exact ns of a µs value written with 3 decimals. */
const ns = (us: number): number => Math.round(us * 1000);

describe('formatMicros', () => {
  it('writes ns as µs with exactly three decimals', () => {
    expect(formatMicros(0)).toBe('0.000');
    expect(formatMicros(1)).toBe('0.001');
    expect(formatMicros(10)).toBe('0.010');
    expect(formatMicros(1_234_567)).toBe('1234.567');
    expect(formatMicros(-1_500)).toBe('-1.500');
    expect(formatMicros(9_007_199_254_740_991)).toBe('9007199254740.991');
  });
});

describe('writeChromeTrace', () => {
  it('writes the Kineto object form with header fields and gsprof metadata', async () => {
    const trace = sampleTrace();
    const { text, json } = await written('header.json', trace);
    expect(json.schemaVersion).toBe(1);
    expect(json.displayTimeUnit).toBe('ms');
    expect(json.traceName).toBe('exporter-fixture');
    // No launcher started the process: no rank is stated (HTA reads a trace without one as a single process's).
    expect(json.distributedInfo).toBeUndefined();
    expect(json.deviceProperties).toEqual(trace.metadata.deviceProperties);
    // The exact epoch ns is in the text even though JSON.parse rounds it to a double.
    expect(text).toContain(`"baseTimeNanoseconds":${BASE_TIME_NS}`);
    expect(json.gsprofMetadata.baseTimeNs).toBe(BASE_TIME_NS.toString());
    expect(json.gsprofMetadata.run).toEqual(trace.metadata.run);
    expect(json.gsprofMetadata.clockAlignment.errorBoundNs).toBe(2000);
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('writes every ts and dur with exactly three decimals, exact to the ns', async () => {
    const trace = sampleTrace();
    const { text, events } = await written('times.json', trace);
    const numbers = [...text.matchAll(/"(?:ts|dur)":(-?[0-9.]+)/g)].map((m) => m[1]!);
    expect(numbers.length).toBeGreaterThan(50);
    for (const n of numbers) expect(n).toMatch(/^-?\d+\.\d{3}$/);
    const xs = events.filter((e) => e.ph === 'X');
    expect(xs).toHaveLength(trace.slices.length);
    for (const s of trace.slices) {
      const e = xs.find((x) => x.name === s.name && ns(x.ts) === s.ts);
      expect(e, s.name).toBeDefined();
      expect(ns(e!.dur!)).toBe(s.dur);
    }
  });

  it('names processes and threads with M events', async () => {
    const { events } = await written('meta.json');
    const m = events.filter((e) => e.ph === 'M');
    const named = (name: string, pid: number) => m.find((e) => e.name === name && e.pid === pid);
    expect(named('process_name', HOST_PID)?.args?.name).toBe('node franka.ts');
    expect(named('process_name', GPU_PID)?.args?.name).toBe('GPU 0 (llvmpipe)');
    expect(named('process_sort_index', HOST_PID)?.args?.sort_index).toBe(0);
    expect(named('process_sort_index', GPU_PID)?.args?.sort_index).toBe(1);
    expect(m.find((e) => e.name === 'thread_name' && e.pid === HOST_PID && e.tid === HOST_PID)?.args?.name).toBe('main');
    expect(m.find((e) => e.name === 'thread_name' && e.pid === GPU_PID && e.tid === 0)?.args?.name).toBe('queue 0');
  });

  it('writes kernels, steps, ac2g flows, counters, instants and env timers in Kineto form', async () => {
    const trace = sampleTrace(2, 4);
    const { events } = await written('kineto.json', trace);
    const kernels = events.filter((e) => e.cat === 'kernel');
    expect(kernels.map((e) => e.name)).toEqual([...KERNELS, ...KERNELS]);
    for (const k of kernels) {
      expect(k).toMatchObject({ ph: 'X', pid: GPU_PID, tid: 0 });
      expect(k.args).toMatchObject({ kernel: k.name, workgroups: 1, nEnvs: 4, 'label "q"': 'a\\b\n', occupancy: 0.25, timestamped: true });
    }
    expect(events.filter((e) => e.cat === 'user_annotation').map((e) => e.name)).toEqual(['ProfilerStep#0', 'ProfilerStep#1']);

    const starts = events.filter((e) => e.ph === 's');
    const finishes = events.filter((e) => e.ph === 'f');
    expect(starts).toHaveLength(trace.flows.length);
    for (const flow of trace.flows) {
      const s = starts.find((e) => e.id === flow.id)!;
      const f = finishes.find((e) => e.id === flow.id)!;
      const from = trace.slices[flow.fromSlice]!, to = trace.slices[flow.toSlice]!;
      expect(s).toMatchObject({ cat: 'ac2g', pid: HOST_PID, tid: HOST_PID });
      expect(ns(s.ts)).toBe(from.ts);
      expect(f).toMatchObject({ cat: 'ac2g', bp: 'e', pid: GPU_PID, tid: 0 });
      expect(ns(f.ts)).toBe(to.ts);
    }

    const counters = events.filter((e) => e.ph === 'C');
    expect(counters).toHaveLength(trace.counters.length);
    expect(counters.filter((e) => e.name === 'FPS').map((e) => e.args?.value)).toEqual([1234.5, 1235.5]);
    // "GPU memory" is written as counter "GPU", series "memory": a JSON reader names it "GPU memory" again
    const memory = counters.find((e) => e.name === 'GPU');
    expect(memory?.pid).toBe(GPU_PID);
    expect(Object.keys(memory?.args ?? {})).toEqual(['memory']);

    const sync = events.filter((e) => e.name === 'sync');
    expect(sync).toHaveLength(2);
    expect(sync[0]).toMatchObject({ ph: 'i', s: 't', pid: HOST_PID, tid: HOST_PID, args: { label: 'step 0' } });

    const timers = events.filter((e) => e.name === 'env_timers');
    expect(timers).toHaveLength(2);
    for (const [k, t] of timers.entries()) {
      expect(t).toMatchObject({ ph: 'i', s: 't', cat: 'gsprof_timers', args: { step: k, n_envs: 4, labels: 'func_solve,iterations' } });
      const bytes = Buffer.from(t.args!.values_b64 as string, 'base64');
      const values = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      expect([...values]).toEqual([...trace.envTimers[k]!.values]);
    }
  });

  it('keeps thread ids as given when a counter track id equals a thread id', async () => {
    const trace = sampleTrace(1);
    trace.tracks.unshift({ id: 77, kind: 'counter', name: 'clash', pid: HOST_PID, unit: 'count' });
    trace.tracks.find((t) => t.id === TRACK.host)!.tid = 77;
    const { events } = await written('clash.json', trace);
    expect(events.find((e) => e.name === 'ProfilerStep#0')?.tid).toBe(77);
  });

  it('gzips when the path ends in .gz, with the same content', async () => {
    const plain = await written('same.json');
    const gz = await written('same.json.gz');
    expect(readFileSync(join(dir, 'same.json.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gz.text).toBe(plain.text);
  });

  it('never writes partially overlapping X events on one tid', async () => {
    const trace = overlappingTrace();
    const { events } = await written('overlap.json', trace);
    const xs = events.filter((e) => e.ph === 'X');
    expect(xs.map((e) => e.name).sort()).toEqual(trace.slices.map((s) => s.name).sort());
    const byThread = new Map<string, ChromeEvent[]>();
    for (const e of xs) byThread.set(`${e.pid}:${e.tid}`, [...(byThread.get(`${e.pid}:${e.tid}`) ?? []), e]);
    for (const list of byThread.values()) {
      for (const a of list) for (const b of list) {
        const [a0, a1, b0, b1] = [ns(a.ts), ns(a.ts) + ns(a.dur!), ns(b.ts), ns(b.ts) + ns(b.dur!)];
        const partial = a0 < b0 && b0 < a1 && a1 < b1;
        expect(partial, `${a.name} and ${b.name} partially overlap on tid ${a.tid}`).toBe(false);
      }
    }
    // B moved to an overflow thread of the GPU process, named after the queue; A, C, D, E stayed.
    const b = xs.find((e) => e.name === 'B')!;
    expect(b.pid).toBe(GPU_PID);
    expect(b.tid).not.toBe(0);
    const laneName = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === GPU_PID && e.tid === b.tid);
    expect(laneName?.args?.name).toBe('queue 0 (overlap 1)');
    for (const name of ['A', 'C', 'D', 'E']) expect(xs.find((e) => e.name === name)?.tid, name).toBe(0);
  });

  it('streams many events through several batches and still closes the JSON', async () => {
    const trace = sampleTrace(400, 64);
    const { events } = await written('big.json.gz', trace);
    expect(events.filter((e) => e.ph === 'X')).toHaveLength(trace.slices.length);
    expect(events.filter((e) => e.name === 'env_timers')).toHaveLength(400);
  });

  it('writes valid JSON for a recording with no tracks or events', async () => {
    const trace = sampleTrace(0);
    trace.processes.length = 0;
    trace.tracks.length = 0;
    trace.counters.length = 0;
    const { json, events } = await written('empty.json', trace);
    expect(json.gsprofMetadata.traceName).toBe('exporter-fixture');
    expect(events.filter((e) => e.ph !== 'M')).toEqual([]);
  });

  it('rejects a slice on an unknown track with a one-line error and leaves no file behind', async () => {
    const trace = sampleTrace(1);
    trace.slices.push({ track: 99, name: 'lost', category: 'cpu_op', ts: 5, dur: 1 });
    const path = join(dir, 'bad.json');
    await expect(writeChromeTrace(trace, path)).rejects.toThrow("trace: slice 11 ('lost') is on unknown track 99");
    expect(readdirSync(dir).filter((f) => f.startsWith('bad.json'))).toEqual([]);
  });

  it('rejects a directory that does not exist, naming the file', async () => {
    const path = join(dir, 'missing', 'x.json');
    await expect(writeChromeTrace(sampleTrace(1), path)).rejects.toThrow(/cannot write trace file .*missing.*x\.json\.partial: ENOENT/);
  });
});

describe('Chrome trace in the DevTools trace engine', () => {
  it('parses without errors and shows every kernel on the GPU queue thread', async () => {
    const trace = sampleTrace(3);
    const { events } = await written('devtools.json', trace);
    const errors = vi.spyOn(console, 'error');
    const model = TraceEngine.TraceModel.Model.createWithAllHandlers();
    await model.parse(events as unknown as TraceEngine.Types.Events.Event[]);
    const parsed = model.parsedTrace();
    expect(parsed).not.toBeNull();
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
    expect(parsed!.data.Warnings.perWarning.size).toBe(0);
    const queue = parsed!.data.Renderer.processes.get(GPU_PID as TraceEngine.Types.Events.ProcessID)
      ?.threads.get(0 as TraceEngine.Types.Events.ThreadID);
    expect(queue).toBeDefined();
    const shown = queue!.entries.filter((e) => e.cat === 'kernel').map((e) => `${e.name}@${e.ts}`);
    const expected = trace.slices.filter((s) => s.track === TRACK.queue).map((s) => `${s.name}@${s.ts / 1000}`);
    expect(shown.sort()).toEqual(expected.sort());
    const steps = parsed!.data.Renderer.processes.get(HOST_PID as TraceEngine.Types.Events.ProcessID)
      ?.threads.get(HOST_PID as TraceEngine.Types.Events.ThreadID)?.entries.filter((e) => e.name.startsWith('ProfilerStep#'));
    expect(steps?.map((e) => e.name)).toEqual(['ProfilerStep#0', 'ProfilerStep#1', 'ProfilerStep#2']);
  });
});
