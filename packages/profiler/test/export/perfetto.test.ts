import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPerfettoSchema, PerfettoStreamWriter, writePerfettoTrace } from '../../src/export/index.js';
import type { TraceModel } from '../../src/model/trace.js';
import { lcg } from '../../../../test/support/random.js';
import { BASE_TIME_NS, GPU_PID, HOST_PID, KERNELS, overlappingTrace, sampleTrace, TRACK } from './fixtures.js';
import { decodeEvents, readPackets, validatePackets, type Packet } from './pftrace-validator.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-pftrace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function written(name: string, trace: TraceModel = sampleTrace()): Promise<{ bytes: Buffer; packets: Packet[] }> {
  const path = join(dir, name);
  await writePerfettoTrace(trace, path);
  const bytes = readFileSync(path);
  const read = readPackets(bytes);
  expect(read.truncated).toBe(false);
  return { bytes, packets: read.packets };
}

const rel = (ts: bigint): number => Number(ts - BASE_TIME_NS);

/** Names and args of BEGIN events, resolving iids against the state at that point of the sequence. */
function decodeEventsPerSequence(packets: Packet[]): Array<{ name: string; args: Record<string, unknown> }> {
  let names = new Map<string, string>(), keys = new Map<string, string>();
  const out: Array<{ name: string; args: Record<string, unknown> }> = [];
  for (const p of packets) {
    if ((p.sequenceFlags ?? 0) & 1) { names = new Map(); keys = new Map(); }
    for (const e of p.internedData?.eventNames ?? []) names.set(e.iid, e.name);
    for (const e of p.internedData?.debugAnnotationNames ?? []) keys.set(e.iid, e.name);
    if (p.trackEvent?.type !== 1) continue;
    const args: Record<string, unknown> = {};
    for (const d of p.trackEvent.debugAnnotations ?? []) args[keys.get(d.nameIid)!] = Number(d.intValue);
    out.push({ name: names.get(p.trackEvent.nameIid)!, args });
  }
  return out;
}

describe('writePerfettoTrace', () => {
  it('decodes as a Trace under the .proto schema and passes the structural validator', async () => {
    const { bytes, packets } = await written('valid.pftrace');
    const { Trace } = loadPerfettoSchema();
    const whole = Trace.toObject(Trace.decode(bytes), { longs: String, arrays: true });
    expect(whole.packet).toHaveLength(packets.length);
    expect(validatePackets(packets)).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('starts the sequence with cleared state and interned names; later events refer by iid', async () => {
    const { packets } = await written('interning.pftrace');
    const first = packets[0]!;
    expect(first.sequenceFlags).toBe(3);
    expect(first.trustedPacketSequenceId).toBeGreaterThan(0);
    const firstNames = first.internedData.eventNames.map((e: Packet) => e.name);
    expect(firstNames).toEqual(expect.arrayContaining(['gsprof.metadata', 'ProfilerStep#0', ...KERNELS]));
    expect(first.internedData.eventCategories.map((e: Packet) => e.name)).toEqual(expect.arrayContaining(['kernel', 'user_annotation', '__metadata']));
    expect(first.internedData.debugAnnotationNames.map((e: Packet) => e.name)).toEqual(expect.arrayContaining(['json', 'values_b64']));
    const events = packets.filter((p) => p.trackEvent);
    for (const p of events) {
      expect(p.sequenceFlags).toBe(2);
      expect(p.trustedPacketSequenceId).toBe(first.trustedPacketSequenceId);
      expect(p.trackEvent.name).toBeUndefined();
    }
    // Kernel args became interned debug annotations; their names arrive in the first packet that uses them.
    expect(packets.some((p, i) => i > 0 && p.internedData?.debugAnnotationNames?.some((d: Packet) => d.name === 'workgroups'))).toBe(true);
  });

  it('declares the process, the host thread, the GPU queue as a thread of its GPU process, and typed counters', async () => {
    const { packets } = await written('tracks.pftrace');
    const tds = packets.filter((p) => p.trackDescriptor).map((p) => p.trackDescriptor);
    const host = tds.find((t) => t.process?.pid === HOST_PID);
    const gpu = tds.find((t) => t.process?.pid === GPU_PID);
    expect(host?.process.processName).toBe('node franka.ts');
    expect(gpu?.process.processName).toBe('GPU 0 (llvmpipe)');
    // tid is an int64 (as in Perfetto's proto): decoded as a string, like the uuids.
    expect(tds.find((t) => t.thread)?.thread).toEqual({ pid: HOST_PID, tid: String(HOST_PID), threadName: 'main' });
    expect(tds.find((t) => t.thread?.pid === GPU_PID)?.thread).toEqual({ pid: GPU_PID, tid: '0', threadName: 'queue 0' });
    expect(tds.find((t) => t.name === 'FPS')?.counter).toEqual({ unit: 2 });
    expect(tds.find((t) => t.name === 'GPU memory')).toMatchObject({ parentUuid: gpu!.uuid, counter: { unit: 3 } });
    expect(tds.find((t) => t.name === 'solver iterations p95')?.counter).toEqual({ unitName: 'iterations' });
  });

  it('keeps two tracks with one pid and tid apart: the second is declared by name, not folded into the first thread', async () => {
    const trace = sampleTrace(1, 1);
    trace.tracks.push({ id: 99, kind: 'gpu_queue', name: 'queue 0 again', pid: GPU_PID, tid: 0 });
    trace.slices.push({ track: 99, name: 'other kernel', category: 'kernel', ts: 10, dur: 5 });
    const { packets } = await written('same-tid.pftrace', trace);
    const tds = packets.filter((p) => p.trackDescriptor).map((p) => p.trackDescriptor);
    expect(tds.filter((t) => t.thread?.pid === GPU_PID && t.thread.tid === '0')).toHaveLength(1);
    expect(tds.find((t) => t.name === 'queue 0 again')?.parentUuid).toBe(tds.find((t) => t.process?.pid === GPU_PID)!.uuid);
    expect(decodeEvents(packets).slices.find((s) => s.name === 'other kernel')?.trackName).toBe('queue 0 again');
  });

  it('round-trips slices, args, flows, counters, instants, metadata and env timers exactly', async () => {
    const trace = sampleTrace(3, 4);
    const { packets } = await written('content.pftrace', trace);
    const decoded = decodeEvents(packets);
    expect(decoded.slices).toHaveLength(trace.slices.length);
    for (const [i, s] of trace.slices.entries()) {
      const d = decoded.slices.find((x) => x.name === s.name && rel(x.ts) === s.ts)!;
      expect(d, s.name).toBeDefined();
      expect(Number(d.dur)).toBe(s.dur);
      expect(d.category).toBe(s.category);
      expect(d.trackName).toBe(s.track === TRACK.queue ? 'queue 0' : 'main');
      expect(d.args).toEqual(s.args ?? {});
      const out = trace.flows.filter((f) => f.fromSlice === i).map((f) => String(f.id));
      const inn = trace.flows.filter((f) => f.toSlice === i).map((f) => String(f.id));
      expect(d.flowIds).toEqual(out);
      expect(d.terminatingFlowIds).toEqual(inn);
    }
    expect(decoded.counters.map((c) => [c.trackName, rel(c.ts), c.value]).sort())
      .toEqual(trace.counters.map((c) => [trace.tracks.find((t) => t.id === c.track)!.name, c.ts, c.value]).sort());

    const meta = decoded.instants.find((e) => e.name === 'gsprof.metadata')!;
    expect(meta).toMatchObject({ category: '__metadata', trackName: 'main', ts: BASE_TIME_NS });
    const json = JSON.parse(meta.args.json as string);
    expect(json.baseTimeNs).toBe(BASE_TIME_NS.toString());
    expect(json.deviceProperties).toEqual(trace.metadata.deviceProperties);

    const timers = decoded.instants.filter((e) => e.name === 'env_timers');
    expect(timers).toHaveLength(3);
    for (const [k, t] of timers.entries()) {
      expect(t).toMatchObject({ category: 'gsprof_timers', trackName: 'main', args: { step: k, n_envs: 4, labels: 'func_solve,iterations' } });
      expect(rel(t.ts)).toBe(trace.envTimers[k]!.ts);
      const b = Buffer.from(t.args.values_b64 as string, 'base64');
      expect([...new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))]).toEqual([...trace.envTimers[k]!.values]);
    }
    expect(decoded.instants.filter((e) => e.name === 'sync').map((e) => e.args.label)).toEqual(['step 0', 'step 1', 'step 2']);
  });

  it('writes absolute timestamps beyond 2^53 exactly, in non-decreasing order', async () => {
    const { packets } = await written('times.pftrace');
    const ts = packets.filter((p) => p.trackEvent).map((p) => BigInt(p.timestamp));
    for (let i = 1; i < ts.length; i++) expect(ts[i]! >= ts[i - 1]!).toBe(true);
    expect(ts.some((t) => (t - BASE_TIME_NS) % 1000n !== 0n)).toBe(true);
  });

  it('starts a fresh interning state when unique names pile up, and every name still decodes', async () => {
    const trace = sampleTrace(1);
    for (let k = 0; k < 10_000; k++) {
      trace.slices.push({ track: TRACK.host, name: `Unique#${k}`, category: "user_annotation", ts: 2_000_000 + k * 10, dur: 5, args: { [`key${k}`]: k } });
    }
    const { packets } = await written('unique-names.pftrace', trace);
    expect(validatePackets(packets)).toEqual([]);
    const clears = packets.filter((p) => (p.sequenceFlags ?? 0) & 1);
    expect(clears.length).toBeGreaterThanOrEqual(3);
    const largest = packets.flatMap((p) => [p.internedData?.eventNames?.length ?? 0, p.internedData?.debugAnnotationNames?.length ?? 0]).reduce((m, x) => Math.max(m, x), -Infinity);
    expect(largest).toBeLessThanOrEqual(4096);
    const decoded = decodeEventsPerSequence(packets);
    for (let k = 0; k < 10_000; k += 997) {
      const s = decoded.find((d) => d.name === `Unique#${k}`);
      expect(s?.args).toEqual({ [`key${k}`]: k });
    }
  });

  it('moves partially overlapping slices to an overflow track so BEGIN/END stay balanced', async () => {
    const trace = overlappingTrace();
    const { packets } = await written('overlap.pftrace', trace);
    expect(validatePackets(packets)).toEqual([]);
    const decoded = decodeEvents(packets);
    expect(decoded.slices.map((s) => s.name).sort()).toEqual(trace.slices.map((s) => s.name).sort());
    const byName = (n: string) => decoded.slices.find((s) => s.name === n)!;
    expect(byName('B').trackName).toBe('queue 0 (overlap 1)');
    for (const n of ['A', 'C', 'D', 'E']) expect(byName(n).trackName, n).toBe('queue 0');
    for (const s of trace.slices) expect(Number(byName(s.name).dur)).toBe(s.dur);
  });

  it('recovers every whole packet from a file cut at random byte offsets', async () => {
    const { bytes, packets } = await written('cut.pftrace', sampleTrace(40));
    // Byte offset where each packet ends.
    const ends: number[] = [];
    let pos = 0;
    for (let i = 0; i < packets.length; i++) {
      let len = 0, scale = 1, p = pos + 1;
      for (;;) { const b = bytes[p++]!; len += (b & 0x7f) * scale; scale *= 128; if (!(b & 0x80)) break; }
      pos = p + len;
      ends.push(pos);
    }
    expect(pos).toBe(bytes.length);
    const random = lcg(12345);
    const cuts = [0, 1, 2, bytes.length - 1, ...Array.from({ length: 60 }, () => Math.floor(random() * bytes.length))];
    for (const cut of cuts) {
      const path = join(dir, 'truncated.pftrace');
      writeFileSync(path, bytes.subarray(0, cut));
      const read = readPackets(readFileSync(path));
      const whole = ends.filter((e) => e <= cut).length;
      expect(read.packets, `cut at ${cut}`).toHaveLength(whole);
      if (whole > 0) expect(read.packets[whole - 1]).toEqual(packets[whole - 1]);
      expect(read.truncated).toBe(cut !== (whole > 0 ? ends[whole - 1] : 0));
      // What survives still obeys the interning and declaration rules (unfinished slices aside).
      expect(validatePackets(read.packets).filter((p) => !p.includes('never ended'))).toEqual(whole > 0 ? [] : ['no packets']);
    }
  });

  it('streams many events in chunks with bounded buffering', async () => {
    const trace = sampleTrace(600, 64);
    const { packets } = await written('big.pftrace', trace);
    expect(validatePackets(packets)).toEqual([]);
    expect(packets.filter((p) => p.trackEvent?.type === 1)).toHaveLength(trace.slices.length);
  });

  it('gives the same bytes for a trace whether or not a larger export ran before it in the process', async () => {
    // The exporter reuses its layout buffers between exports; nothing of an earlier trace may leak into a later one.
    const small = sampleTrace(5, 4);
    const first = join(dir, 'reuse-a.pftrace');
    const again = join(dir, 'reuse-b.pftrace');
    await writePerfettoTrace(small, first);
    await writePerfettoTrace(sampleTrace(400, 16), join(dir, 'reuse-big.pftrace'));
    await writePerfettoTrace(small, again);
    expect(readFileSync(again).equals(readFileSync(first))).toBe(true);
  });

  it('writes a valid trace for a recording with no tracks or events (metadata on a synthetic host thread)', async () => {
    const trace = sampleTrace(0);
    trace.processes.length = 0;
    trace.tracks.length = 0;
    trace.counters.length = 0;
    const { packets } = await written('empty.pftrace', trace);
    expect(validatePackets(packets)).toEqual([]);
    const decoded = decodeEvents(packets);
    expect(decoded.instants.map((e) => [e.name, e.trackName])).toEqual([['gsprof.metadata', 'host']]);
  });

  it('rejects events on unknown tracks and counters on thread tracks, leaving no file', async () => {
    const a = sampleTrace(1);
    a.instants.push({ track: 77, name: 'lost', category: 'x', ts: 1 });
    await expect(writePerfettoTrace(a, join(dir, 'bad1.pftrace'))).rejects.toThrow("trace: instant 1 ('lost') is on unknown track 77");
    const b = sampleTrace(1);
    b.counters.push({ track: TRACK.host, ts: 1, value: 2 });
    await expect(writePerfettoTrace(b, join(dir, 'bad2.pftrace'))).rejects.toThrow('perfetto: counter sample on non-counter track 1');
    expect(readdirSync(dir).filter((f) => f.startsWith('bad'))).toEqual([]);
  });
});

describe('PerfettoStreamWriter', () => {
  it('writes events as they happen (begin/end, instants, counters) into a valid trace', async () => {
    const path = join(dir, 'stream.pftrace');
    const w = await PerfettoStreamWriter.open(path, { baseTimeNs: 5_000_000_000n, sequenceId: 7 });
    w.addProcess(10, 'app');
    w.addTrack({ id: 1, kind: 'thread', name: 'main', pid: 10, tid: 11 });
    w.addTrack({ id: 2, kind: 'counter', name: 'FPS', pid: 10, unit: 'count' });
    w.begin(1, 'step', 'user_annotation', 0, { step: 0 });
    w.begin(1, 'encode', 'cpu_op', 10);
    w.end(1, 20);
    w.instant(1, 'sync', 'sync', 25);
    w.counter(2, 30, 60.5);
    w.end(1, 40);
    await w.flush();
    // After flush, the partial file already holds every packet so far and is loadable.
    const partial = readPackets(readFileSync(`${path}.partial`));
    expect(partial.truncated).toBe(false);
    expect(partial.packets).toHaveLength(w.packetsWritten);
    w.slice(1, 'step', 'user_annotation', 50, 10, { step: 1 });
    expect(() => w.counter(1, 60, 1)).toThrow('perfetto: counter sample on non-counter track 1');
    expect(() => w.instant(3, 'x', 'y', 60)).toThrow('perfetto: instant \'x\' on track 3, which was not declared with addTrack');
    await w.close();
    const { packets } = readPackets(readFileSync(path));
    expect(validatePackets(packets)).toEqual([]);
    expect(packets.every((p) => p.trustedPacketSequenceId === 7)).toBe(true);
    const decoded = decodeEvents(packets);
    expect(decoded.slices.map((s) => [s.name, Number(s.ts - 5_000_000_000n), Number(s.dur)]))
      .toEqual([['step', 0, 40], ['encode', 10, 10], ['step', 50, 10]]);
    expect(decoded.counters.map((c) => c.value)).toEqual([60.5]);
  });
});
