// The hand-written encoder must produce what protobufjs produces: checked byte for byte on whole traces,
// and by decoding its output with protobufjs for arbitrary values.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPerfettoSchema, writePerfettoTraceWithOptions } from '../../src/export/index.js';
import { PacketBuffer } from '../../src/export/packet-buffer.js';
import { overlappingTrace, sampleTrace, TRACK } from './fixtures.js';
import { readPackets, validatePackets } from './pftrace-validator.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-packets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { root } = loadPerfettoSchema();
const DebugAnnotation = root.lookupType('perfetto.protos.DebugAnnotation');

describe('hand-written TrackEvent encoder', () => {
  it('writes the same bytes as protobufjs for whole traces', async () => {
    const trace = overlappingTrace();
    // Values that exercise every branch: negative and large ints, doubles, long and non-ASCII strings.
    trace.slices.push({
      track: TRACK.host, name: 'odd args', category: 'cpu_op', ts: 3_000_000, dur: 5,
      args: { neg: -1, big: 2 ** 52 + 1, minSafe: Number.MIN_SAFE_INTEGER, half: 0.5, nan: NaN, inf: -Infinity,
        long: 'x'.repeat(300), utf: 'naïve ✓ 𝄞', empty: '', no: false,
        dims: [[2, 3], [], [-1, 0.5]], nested: { on: true, none: null, opts: {}, name: 'x'.repeat(200), deep: [{ k: [1] }] },
        // int64s beyond 2^53 (a converted pftrace's), at the top level and nested
        max64: 2n ** 63n - 1n, min64: -(2n ** 63n), past53: 2n ** 53n + 1n, bigs: { v: [-(2n ** 53n) - 3n] } },
    });
    trace.counters.push({ track: TRACK.fps, ts: 3_000_000, value: -0.125 });
    const direct = join(dir, 'direct.pftrace'), reference = join(dir, 'protobufjs.pftrace');
    await writePerfettoTraceWithOptions(trace, direct, { encoder: 'direct' });
    await writePerfettoTraceWithOptions(trace, reference, { encoder: 'protobufjs' });
    const a = readFileSync(direct), b = readFileSync(reference);
    expect(a.length).toBe(b.length);
    expect(a.equals(b)).toBe(true);
    const { packets } = readPackets(a);
    expect(validatePackets(packets)).toEqual([]);
    const text = JSON.stringify(packets);
    for (const v of [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 3n]) expect(text).toContain(`"intValue":"${v}"`);
  });

  it('matches protobufjs across chunk boundaries of a larger trace', async () => {
    const trace = sampleTrace(300, 64);
    const direct = join(dir, 'd2.pftrace'), reference = join(dir, 'r2.pftrace');
    await writePerfettoTraceWithOptions(trace, direct, { encoder: 'direct', chunkBytes: 4096 });
    await writePerfettoTraceWithOptions(trace, reference, { encoder: 'protobufjs', chunkBytes: 4096 });
    expect(readFileSync(direct).equals(readFileSync(reference))).toBe(true);
  });

  it('encodes any int64, double, bool and string so that protobufjs decodes the same value', () => {
    const value = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.string({ unit: 'binary', maxLength: 400 }),
    );
    fc.assert(fc.property(fc.nat(2 ** 40), value, (iid, v) => {
      const b = new PacketBuffer(16);
      b.varint(0x08); b.varint(iid);
      if (typeof v === 'string') { b.varint(0x32); b.string(v); }
      else if (typeof v === 'boolean') { b.varint(0x10); b.varint(v ? 1 : 0); }
      else if (Number.isSafeInteger(v)) { b.varint(0x20); b.int64(v); }
      else { b.varint(0x29); b.double(v); }
      const decoded = DebugAnnotation.toObject(DebugAnnotation.decode(b.take()), { longs: String });
      expect(decoded.nameIid).toBe(String(iid));
      if (typeof v === 'string') expect(decoded.stringValue).toBe(Buffer.from(v).toString());
      else if (typeof v === 'boolean') expect(decoded.boolValue).toBe(v);
      else if (Number.isSafeInteger(v)) expect(decoded.intValue).toBe(String(v));
      else expect(Object.is(decoded.doubleValue, v)).toBe(true);
    }), { numRuns: 500 });
  });

  it('writes lengths over 127 bytes by shifting the body', () => {
    for (const n of [127, 128, 300, 16_383, 16_384, 70_000]) {
      const b = new PacketBuffer(8);
      const mark = b.open();
      for (let i = 0; i < n; i++) b.varint(i % 100);
      b.close(mark);
      const out = b.take();
      let len = 0, scale = 1, p = 0;
      for (;;) { const x = out[p++]!; len += (x & 0x7f) * scale; scale *= 128; if (!(x & 0x80)) break; }
      expect(len).toBe(n);
      expect(out.length).toBe(p + n);
      expect(out[out.length - 1]).toBe((n - 1) % 100);
    }
  });
});
