/**
 * Property tests: real traces mutated at random (truncated, bytes flipped, ranges spliced) either import or
 * fail with a one-line TraceFormatError, never another exception, and never hang.
 * Most cases run the importers' parsing and checks alone (validateTrace); a share of them also build the
 * tables in one reused DuckDB instance (dropped between cases).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { importTraceInto, TraceFormatError, validateTrace } from '../../src/index.js';
import { dropTraceTables } from '../../src/sql/schema.js';
import { trace } from './support/proto-writer.js';
import { tempFiles } from './support/tmp.js';

const files = tempFiles();
let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  conn = await instance.connect();
});
afterAll(() => { conn.closeSync(); instance.closeSync(); files.cleanup(); });

const shared = hasShared();

function seeds(): { name: string; bytes: Buffer }[] {
  const out: { name: string; bytes: Buffer }[] = [{
    name: 'own.pftrace',
    bytes: trace([
      [[10, 1], [8, 1], [13, 3], [60, [[1, 1], [4, [[1, 1], [2, 1], [5, 't']]]]], [12, [[2, [[1, 1], [2, 'k']]]]]],
      [[10, 1], [8, 5], [13, 2], [11, [[9, 1], [11, 1], [10, 1], [47, { fixed64: 3n }], [4, [[10, 'a'], [4, 1]]]]]],
      [[10, 1], [8, 9], [13, 2], [11, [[9, 2], [11, 1]]]],
    ]),
  }, {
    name: 'own.json',
    bytes: Buffer.from(JSON.stringify({ traceEvents: [
      { ph: 'X', name: 'ProfilerStep#1', cat: 'user_annotation', pid: 1, tid: 1, ts: 1.5, dur: 10, args: { a: [1, 2] } },
      { ph: 's', id: 1, cat: 'ac2g', name: 'ac2g', pid: 1, tid: 1, ts: 2 },
      { ph: 'X', name: 'k', cat: 'kernel', pid: 0, tid: 7, ts: 3, dur: 1 },
      { ph: 'f', id: 1, cat: 'ac2g', name: 'ac2g', pid: 0, tid: 7, ts: 3, bp: 'e' },
      { ph: 'C', name: 'c', pid: 1, ts: 4, args: { v: 1 } },
    ], baseTimeNanoseconds: 1000 })),
  }];
  if (shared) {
    for (const f of ['flow_events_track_event.pftrace', 'track_event_counters.pftrace', 'track_event_merged_debug_annotations.pftrace', 'flow_events_json_v2.json']) {
      out.push({ name: f, bytes: readFileSync(sharedPath('traces', 'perfetto', f)) });
    }
    const k = gunzipSync(readFileSync(sharedPath('traces', 'pytorch-kineto', 'triton_example__triton_example.json.gz')));
    out.push({ name: 'triton.json', bytes: k });
    out.push({ name: 'execution.json.gz', bytes: readFileSync(sharedPath('traces', 'pytorch-kineto', 'execution_trace__benchmark_simple_add_trace.json.gz')) });
  }
  return out;
}

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; xor: number }
  | { kind: 'splice'; from: number; len: number; to: number }
  | { kind: 'insert'; at: number; bytes: number[] };

function mutate(src: Buffer, muts: Mutation[]): Buffer {
  let b = Buffer.from(src);
  for (const m of muts) {
    const at = (x: number) => (b.length === 0 ? 0 : x % (b.length + 1));
    if (m.kind === 'truncate') b = b.subarray(0, at(m.at));
    else if (m.kind === 'flip') { if (b.length > 0) { const i = m.at % b.length; b[i] = b[i]! ^ m.xor; } }
    else if (m.kind === 'splice') {
      const from = at(m.from);
      const piece = b.subarray(from, from + m.len);
      const to = at(m.to);
      b = Buffer.concat([b.subarray(0, to), piece, b.subarray(to)]);
    } else {
      const i = at(m.at);
      b = Buffer.concat([b.subarray(0, i), Buffer.from(m.bytes), b.subarray(i)]);
    }
  }
  return b;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('splice' as const), from: fc.nat(), len: fc.integer({ min: 1, max: 64 }), to: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.array(fc.constantFrom(0x00, 0x0a, 0x22, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x80, 0xff, 0x5c, 0x3a), { minLength: 1, maxLength: 8 }) }),
);

describe('corrupted traces', () => {
  const all = seeds();
  const validated = Math.ceil(1800 / all.length);
  const imported = Math.ceil(300 / all.length);

  for (const seed of all) for (const full of [false, true]) {
    const perSeed = full ? imported : validated;
    it(`${seed.name}: ${perSeed} random mutations ${full ? 'import into DuckDB' : 'validate'} or fail with a one-line TraceFormatError`, async () => {
      const gz = seed.name.endsWith('.gz');
      const plain = gz ? gunzipSync(seed.bytes) : seed.bytes;
      const path = join(files.dir, `case-${seed.name}`);
      let failures = 0;
      await fc.assert(fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.boolean(), async (muts, mutateCompressed) => {
        // For a gzipped seed, corrupt either the compressed bytes or the content inside a valid gzip stream.
        const bytes = gz ? (mutateCompressed ? mutate(seed.bytes, muts) : gzipSync(mutate(plain, muts))) : mutate(seed.bytes, muts);
        writeFileSync(path, bytes);
        const started = Date.now();
        try {
          if (full) {
            await dropTraceTables(conn);
            await importTraceInto(path, conn);
          } else {
            await validateTrace(path);
          }
        } catch (err) {
          failures++;
          if (!(err instanceof TraceFormatError)) throw new Error(`not a TraceFormatError: ${String(err)}`);
          expect(err.message).not.toContain('\n');
          expect(err.message.startsWith(path)).toBe(true);
        }
        expect(Date.now() - started).toBeLessThan(5000);
      }), { numRuns: perSeed, timeout: 10_000, seed: Number(process.env.GSPROF_FC_SEED ?? (full ? 7 : 20261202)) });
      expect(failures).toBeGreaterThan(0);
    }, 120_000);
  }
});
