/**
 * `gsprof export --format parquet` on three real PyTorch rank traces (ranks 0, 1 and 34 of their jobs): the Hive
 * layout by rank, the manifest, and the files read back by hyparquet, a Parquet reader that is not DuckDB: every
 * table's row count per rank, and a sample of slice rows value for value, equal what `gsprof query` returns on
 * that rank's trace; the step table equals what `summary` reports. Then the inputs a job folder can hold that
 * must not be exported: a file that is not a trace, two traces of one rank, a trace with no rank.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';
import { hasShared, sharedPath } from './support/shared.js';

const kineto = (name: string): string => sharedPath('traces', 'pytorch-kineto', name);
const RANKS: Record<number, string> = {
  0: 'timeline_analysis__sampled_rank-0.json.gz',
  1: 'trace_filter__sampled_rank-1.json.gz',
  34: 'cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz',
};
const NO_RANK = 'distributed_info_unavailable__distributed_info_not_found.json.gz';

type Row = Record<string, unknown>;
const query = async (trace: string, sql: string): Promise<Row[]> => {
  const r = await gsprof(['query', trace, sql, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { rows: Row[] }).rows;
};
const readParquet = async (file: string): Promise<Row[]> => await parquetReadObjects({ file: await asyncBufferFromFile(file) }) as Row[];
/** hyparquet reads INT64 as bigint; gsprof query's JSON writes an int64 past 2^53 as its digits. */
const plain = (v: unknown): unknown => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v);

interface Manifest { format: string; schema_version: number; tables: string[]; ranks: Array<{ rank: number; source: string; rows: Record<string, number> }>; skipped: Array<{ path: string; reason: string }> }

describe.skipIf(!hasShared())('gsprof export --format parquet', () => {
  let out = '';
  let manifest: Manifest;
  beforeAll(async () => {
    ensureBuilt();
    out = join(tempDir(), 'job.parquet');
    const r = await gsprof(['export', ...Object.values(RANKS).map(kineto), '--format', 'parquet', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*job\.parquet: 3 ranks \(0, 1, 34\), \d+ slices$/m);
    manifest = JSON.parse(readFileSync(join(out, 'gsprof-export.json'), 'utf8')) as Manifest;
  }, 240_000);

  it('lays every table out as Hive partitions by rank, with a manifest naming the schema version and sources', () => {
    expect(manifest.format).toBe('gsprof-parquet');
    expect(manifest.schema_version).toBe(1);
    expect(manifest.tables).toEqual(expect.arrayContaining(['slice', 'track', 'thread_track', 'thread', 'process', 'counter', 'args', 'flow', 'gpu_launch', 'step']));
    expect(manifest.ranks.map((r) => [r.rank, r.source])).toEqual(Object.entries(RANKS).map(([k, f]) => [Number(k), kineto(f)]));
    for (const t of manifest.tables) {
      expect(readdirSync(join(out, t)).sort(), t).toEqual(['rank=0', 'rank=1', 'rank=34']);
      for (const k of Object.keys(RANKS)) expect(readdirSync(join(out, t, `rank=${k}`)), `${t} rank ${k}`).toEqual(['part-0.parquet']);
    }
    // Written in a temporary folder beside it and renamed: nothing of it is left.
    expect(readdirSync(join(out, '..'))).toEqual(['job.parquet']);
  });

  it('hyparquet reads each table of each rank with exactly the rows gsprof query counts on that rank\'s trace', async () => {
    for (const [rank, file] of Object.entries(RANKS)) {
      const [counts] = await query(kineto(file), `select ${manifest.tables.map((t) => `(select count(*) from ${t === 'step' ? "slice where name like 'ProfilerStep#%' and coalesce(category, '') <> 'gpu_user_annotation' and dur >= 0" : t}) as "${t}"`).join(', ')}`);
      for (const t of manifest.tables) {
        const rows = await readParquet(join(out, t, `rank=${rank}`, 'part-0.parquet'));
        expect(rows.length, `${t} of rank ${rank}`).toBe(counts![t]);
        expect(manifest.ranks.find((r) => r.rank === Number(rank))!.rows[t], `${t} of rank ${rank} in the manifest`).toBe(counts![t]);
      }
    }
    const slices = await readParquet(join(out, 'slice', 'rank=0', 'part-0.parquet'));
    expect(slices.length).toBeGreaterThan(1000);
  });

  it('slice rows, sampled across the table, are value for value what gsprof query returns (int64 ns kept exact)', async () => {
    const trace = kineto(RANKS[0]!);
    const ids = [0, 1, 2, 500, 1500, 4000];
    const expected = await query(trace, `select * from slice where id in (${ids.join(',')}) order by id`);
    const rows = (await readParquet(join(out, 'slice', 'rank=0', 'part-0.parquet'))).filter((r) => ids.includes(Number(r.id)));
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    expect(expected.length).toBe(ids.length);
    expect(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])))).toEqual(expected);
    // Kineto's absolute times are past 2^53 ns: they must come back as their exact digits, not rounded doubles.
    expect(typeof expected[0]!.ts).toBe('string');
    const args = await query(trace, `select key, int_value, string_value from args where arg_set_id = ${Number(rows[3]!.arg_set_id)} order by id`);
    const parquetArgs = (await readParquet(join(out, 'args', 'rank=0', 'part-0.parquet')))
      .filter((a) => Number(a.arg_set_id) === Number(rows[3]!.arg_set_id)).sort((a, b) => Number(a.id) - Number(b.id))
      .map((a) => ({ key: a.key, int_value: plain(a.int_value) ?? null, string_value: a.string_value ?? null }));
    expect(args.length).toBeGreaterThan(0);
    expect(parquetArgs).toEqual(args);
  });

  it('timestamps are INT64 and repeated strings (names, categories) are dictionary-encoded', async () => {
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(join(out, 'slice', 'rank=0', 'part-0.parquet')));
    const col = (name: string) => meta.row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema.join('.') === name)!.meta_data!;
    expect(col('ts').type).toBe('INT64');
    expect(col('dur').type).toBe('INT64');
    for (const c of ['name', 'category']) expect(col(c).encodings.some((e) => /DICTIONARY/.test(e)), c).toBe(true);
  });

  it('the step table holds each step\'s number, start and completed duration: the steps summary reports', async () => {
    const steps = (await readParquet(join(out, 'step', 'rank=0', 'part-0.parquet')));
    const r = await gsprof(['summary', kineto(RANKS[0]!), '--json']);
    const summary = JSON.parse(r.stdout) as { steps: { count: number; minNs: number; maxNs: number } };
    expect(steps.map((s) => Number(s.step))).toEqual([551, 552]);
    expect(steps.length).toBe(summary.steps.count);
    const durs = steps.map((s) => Number(s.dur)).sort((a, b) => a - b);
    expect([durs[0], durs.at(-1)]).toEqual([summary.steps.minNs, summary.steps.maxNs]);
    const [first] = await query(kineto(RANKS[0]!), "select ts from slice where name = 'ProfilerStep#551'");
    expect(plain(steps[0]!.ts)).toBe(first!.ts);
  });

  it('export again to the same folder replaces the earlier export; a folder that is not an export is refused', async () => {
    const r = await gsprof(['export', kineto(RANKS[34]!), '--format', 'parquet', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(out, 'slice'))).toEqual(['rank=34']);
    const other = join(tempDir(), 'mine');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'keep me');
    const refused = await gsprof(['export', kineto(RANKS[34]!), '--format', 'parquet', '-o', other]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(/^gsprof: export: .*mine: exists and is not a gsprof export; not overwritten/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(other)).toEqual(['notes.txt']);
  });
});

describe.skipIf(!hasShared())('gsprof export: what a job folder may hold that is not a rank to export', () => {
  it('skips a file that is not a trace, both traces of one rank and a trace with no rank, one line each, exit 2; exports the rest', async () => {
    ensureBuilt();
    const job = tempDir();
    copyFileSync(kineto(RANKS[0]!), join(job, 'a-rank0.json.gz'));
    copyFileSync(kineto(RANKS[1]!), join(job, 'b-rank1.json.gz'));
    copyFileSync(kineto(RANKS[1]!), join(job, 'c-rank1-again.json.gz'));
    copyFileSync(kineto(RANKS[34]!), join(job, 'd-rank34.json.gz'));
    copyFileSync(kineto(NO_RANK), join(job, 'e-norank.json.gz'));
    writeFileSync(join(job, 'f-notes.json'), 'this is not a trace\n');
    const out = join(tempDir(), 'job.parquet');
    const r = await gsprof(['export', job, '--format', 'parquet', '-o', out]);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('gsprof:'));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^gsprof: .*b-rank1\.json\.gz: skipped: rank 1 is claimed by .*c-rank1-again\.json\.gz too; neither is used$/);
    expect(lines[1]).toMatch(/^gsprof: .*c-rank1-again\.json\.gz: skipped: rank 1 is claimed by .*b-rank1\.json\.gz too; neither is used$/);
    expect(lines[2]).toMatch(/^gsprof: .*e-norank\.json\.gz: skipped: names no rank/);
    expect(lines[3]).toMatch(/^gsprof: .*f-notes\.json: skipped: .*f-notes\.json/);
    expect(lines[4]).toMatch(/^gsprof: export: 4 traces skipped \(see above\); the other ranks were exported to .*job\.parquet$/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(join(out, 'slice')).sort()).toEqual(['rank=0', 'rank=34']);
    const manifest = JSON.parse(readFileSync(join(out, 'gsprof-export.json'), 'utf8')) as Manifest;
    expect(manifest.skipped.map((s) => s.path.replace(/.*\//, ''))).toEqual(['b-rank1.json.gz', 'c-rank1-again.json.gz', 'e-norank.json.gz', 'f-notes.json']);
    expect(existsSync(join(out, 'slice', 'rank=1'))).toBe(false);
  }, 240_000);
});
