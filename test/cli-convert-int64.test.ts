/**
 * convert keeps an int64 arg exactly (issue 12): a pftrace's debug annotations beyond 2^53, at the top level and
 * nested in a dict and an array, come back as the same integers through pftrace -> pftrace, and pftrace -> JSON
 * writes them as bare integer literals. Before, convert's arg reader made them doubles (9007199254740993 came
 * back 9007199254740992). JSON input keeps such literals exact too (trace_processor v58.2 reads the same
 * int64 values from that JSON), so JSON -> pftrace -> JSON gives back the literals it read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { type Field, trace } from '../packages/profiler/test/import/support/proto-writer.js';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

const BIG = 9007199254740993n; // 2^53 + 1: the first integer a double cannot hold
const MIN = -9223372036854775808n;
const MAX = 9223372036854775807n;

// TracePacket: timestamp 8, track_event 11, trusted_packet_sequence_id 10, track_descriptor 60.
// TrackEvent: type 9 (1 begin, 2 end), track_uuid 11, name 23, debug_annotations 4.
// DebugAnnotation: int_value 4, name 10, dict_entries 11, array_values 12.
const annotations: Field[] = [
  [4, [[10, 'big'], [4, BIG]]],
  [4, [[10, 'min'], [4, MIN]]],
  [4, [[10, 'small'], [4, 42]]],
  [4, [[10, 'nested'], [11, [[10, 'max'], [4, MAX]]], [11, [[10, 'neg'], [4, -BIG]]]]],
  [4, [[10, 'list'], [12, [[4, BIG + 1n]]], [12, [[4, 7]]]]],
];
const PFTRACE = trace([
  [[10, 1], [8, 1_000_000], [60, [[1, 10], [3, [[1, 42], [6, 'app']]]]]],
  [[10, 1], [8, 1_000_000], [60, [[1, 11], [4, [[1, 42], [2, 43], [5, 'main']]]]]],
  [[10, 1], [8, 1_000_100], [11, [[9, 1], [11, 11], [23, 'step'], ...annotations]]],
  [[10, 1], [8, 1_000_300], [11, [[9, 2], [11, 11]]]],
]);

/** The exact values each arg must come back with, keyed as the args table names them. */
const EXPECTED = [
  ['debug.big', BIG], ['debug.list[0]', BIG + 1n], ['debug.list[1]', 7n], ['debug.min', MIN],
  ['debug.nested.max', MAX], ['debug.nested.neg', -BIG], ['debug.small', 42n],
].map(([k, v]) => `${k as string},${(v as bigint).toString()}`);

const env = { GSPROF_NO_CACHE: '1' };
let dir = '';

beforeAll(() => {
  ensureBuilt();
  dir = tempDir();
  writeFileSync(join(dir, 'in.pftrace'), PFTRACE);
});

async function convert(from: string, to: string): Promise<void> {
  const r = await gsprof(['convert', join(dir, from), join(dir, to)], { env });
  expect(r.code, r.stderr).toBe(0);
}

/** Each int arg of the slice `step` as `key,value`, the value read as text from the BIGINT column. */
async function intArgs(file: string): Promise<string[]> {
  const sql = "select a.key, cast(a.int_value as varchar) as v from slice s join args a using (arg_set_id) where s.name = 'step' and a.int_value is not null order by a.key";
  const r = await gsprof(['query', join(dir, file), sql, '--format', 'csv'], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').slice(1);
}

it('the input holds the int64 values exactly (the check below can tell)', async () => {
  expect(await intArgs('in.pftrace')).toEqual(EXPECTED);
});

it('pftrace -> pftrace keeps int64 args exactly', async () => {
  await convert('in.pftrace', 'out.pftrace');
  expect(await intArgs('out.pftrace')).toEqual(EXPECTED);
});

it('pftrace -> JSON writes them as exact integer literals, in a file that still parses', async () => {
  await convert('in.pftrace', 'mid.json');
  const text = readFileSync(join(dir, 'mid.json'), 'utf8');
  expect(() => JSON.parse(text)).not.toThrow();
  for (const literal of [`"big":${BIG}`, `"min":${MIN}`, `{"max":${MAX},"neg":${-BIG}}`, `"list":[${BIG + 1n},7]`]) {
    expect(text).toContain(literal);
  }
});

it('JSON -> pftrace -> JSON keeps them: the JSON importer reads the literals exactly', async () => {
  // A JSON file names them args.<name>, a pftrace debug.<name>: the values are compared.
  const values = async (file: string) => (await intArgs(file)).map((l) => l.replace(/^(args|debug)\./, ''));
  const expected = EXPECTED.map((l) => l.replace(/^debug\./, ''));
  await convert('in.pftrace', 'first.json');
  expect(await values('first.json')).toEqual(expected);
  await convert('first.json', 'again.pftrace');
  expect(await values('again.pftrace')).toEqual(expected);
  await convert('again.pftrace', 'again.json');
  expect(await values('again.json')).toEqual(expected);
});
