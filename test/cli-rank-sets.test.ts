/**
 * `query`, `summary` and `gaps` over many ranks at once, as a user gives them: a Parquet export, a glob of rank
 * traces, or a mix. Three real PyTorch rank traces (ranks 0, 1, 34): the answers over the export plus a trace
 * equal the answers over the traces themselves, a rank column first; each rank's summary and gaps equal those of
 * its trace. Then what must not be taken for a rank: an export of a newer (or older) schema, a rank given twice,
 * a file that is not a trace: one line each, exit 2, the other ranks answered. And a second summary over the
 * same traces answers from the results the import cache keeps, opening no database, until a trace changes.
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';
import { hasShared, sharedPath } from './support/shared.js';

const kineto = (name: string): string => sharedPath('traces', 'pytorch-kineto', name);
const RANK0 = kineto('timeline_analysis__sampled_rank-0.json.gz');
const RANK1 = kineto('trace_filter__sampled_rank-1.json.gz');
const RANK34 = kineto('cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz');
const PER_RANK = 'select rank, count(*) as n, sum(dur) as total, min(ts) as first from slice group by rank order by rank';

type Row = Record<string, unknown>;
const queryJson = async (args: string[]): Promise<{ code: number | null; rows: Row[]; stderr: string }> => {
  const r = await gsprof(['query', ...args, '--json']);
  return { code: r.code, rows: r.stdout ? (JSON.parse(r.stdout) as { rows: Row[] }).rows : [], stderr: r.stderr };
};

describe.skipIf(!hasShared())('query, summary and gaps over many ranks', () => {
  let dir = '';
  let ex = '';
  let glob = '';
  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    ex = join(dir, 'ranks01.parquet');
    const r = await gsprof(['export', RANK0, RANK1, '--format', 'parquet', '-o', ex]);
    expect(r.code, r.stderr).toBe(0);
    // The three traces under names a glob picks out (and nothing else there).
    const traces = join(dir, 'traces');
    mkdirSync(traces);
    cpSync(RANK0, join(traces, 'r0.json.gz'));
    cpSync(RANK1, join(traces, 'r1.json.gz'));
    cpSync(RANK34, join(traces, 'r34.json.gz'));
    glob = join(traces, 'r*.json.gz');
  }, 240_000);

  it('query over an export and a trace equals query over the three traces, with a rank column; one rank equals its trace', async () => {
    const mixed = await queryJson([ex, RANK34, PER_RANK]);
    expect(mixed.code, mixed.stderr).toBe(0);
    const traces = await queryJson([glob, PER_RANK]);
    expect(traces.code, traces.stderr).toBe(0);
    expect(mixed.rows.map((r) => r.rank)).toEqual([0, 1, 34]);
    expect(mixed.rows).toEqual(traces.rows);
    const one = await queryJson([RANK1, 'select count(*) as n, sum(dur) as total, min(ts) as first from slice']);
    expect({ ...mixed.rows[1], rank: undefined }).toEqual({ ...one.rows[0], rank: undefined });
    // Every table of the export has the rank column, and the step table answers the straggler question in SQL.
    const steps = await queryJson([ex, 'select step, arg_max(rank, dur) as slowest, max(dur) - min(dur) as spread from step group by step order by step']);
    expect(steps.rows.map((r) => r.step)).toEqual([551, 552]);
  });

  it('summary and gaps over the export give each rank exactly what they give over its trace', async () => {
    for (const command of ['summary', 'gaps'] as const) {
      const fromExport = await gsprof([command, ex, '--json']);
      const fromTraces = await gsprof([command, RANK0, RANK1, '--json']);
      expect(fromExport.code, fromExport.stderr).toBe(0);
      expect(fromTraces.code, fromTraces.stderr).toBe(0);
      type Out = { ranks: Array<Record<string, { trace?: string }>>; stragglers: unknown };
      const a = JSON.parse(fromExport.stdout) as Out;
      const b = JSON.parse(fromTraces.stdout) as Out;
      const body = (o: Out) => o.ranks.map((r) => ({ ...r[command], trace: undefined }));
      expect(a.ranks.map((r) => r.rank)).toEqual([0, 1]);
      expect(body(a)).toEqual(body(b));
      expect(a.stragglers).toEqual(b.stragglers);
    }
  });

  it('an export of a newer or older schema, a rank given twice, a file that is not a trace: a line each, exit 2, the rest answered', async () => {
    const newer = join(dir, 'newer.parquet');
    cpSync(ex, newer, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(newer, 'gsprof-export.json'), 'utf8')) as { schema_version: number };
    writeFileSync(join(newer, 'gsprof-export.json'), JSON.stringify({ ...manifest, schema_version: 99 }));
    const older = join(dir, 'older.parquet');
    cpSync(ex, older, { recursive: true });
    writeFileSync(join(older, 'gsprof-export.json'), JSON.stringify({ ...manifest, schema_version: 0 }));
    const notTrace = join(dir, 'notes.json');
    writeFileSync(notTrace, 'not a trace at all\n');
    copyFileSync(RANK1, join(dir, 'rank1-again.json.gz'));

    const r = await queryJson([newer, older, ex, join(dir, 'rank1-again.json.gz'), notTrace, RANK34, PER_RANK]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.every((l) => l.startsWith('gsprof: '))).toBe(true);
    expect(lines.find((l) => l.includes('newer.parquet'))).toMatch(/newer\.parquet: skipped: written by a newer gsprof \(export schema version 99; this gsprof reads up to 1\)/);
    expect(lines.find((l) => l.includes('older.parquet'))).toMatch(/older\.parquet: skipped: export schema version 0, older than this gsprof's 1: export the traces again/);
    expect(lines.find((l) => l.includes('notes.json'))).toMatch(/notes\.json: skipped: /);
    expect(lines.filter((l) => /skipped: rank 1 is claimed by/.test(l))).toHaveLength(2);
    // --json: the rows are the one document on stdout; stderr has the skipped lines only.
    expect(lines).toHaveLength(5);
    expect(r.rows.map((x) => x.rank)).toEqual([0, 34]);
  });

  it('summary and gaps over a set with a rank given twice and a file that is not a trace: a line each, exit 2, the other rank reported', async () => {
    const again = join(dir, 'rank1-twice.json.gz');
    copyFileSync(RANK1, again);
    const notTrace = join(dir, 'notes-too.json');
    writeFileSync(notTrace, 'not a trace at all\n');
    for (const command of ['summary', 'gaps'] as const) {
      const r = await gsprof([command, RANK0, RANK1, again, notTrace, '--json']);
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines.filter((l) => /skipped: rank 1 is claimed by/.test(l))).toHaveLength(2);
      expect(lines.find((l) => l.includes('notes-too.json'))).toMatch(/notes-too\.json: skipped: byte 0: not a trace/);
      expect((JSON.parse(r.stdout) as { ranks: Array<{ rank: number }> }).ranks.map((x) => x.rank)).toEqual([0]);
    }
  });

  it('a second summary or gaps over the same ranks answers from the kept results, opening no database; an edited rank is analysed again', async () => {
    const cache = join(dir, 'kept-cache');
    const env = { GSPROF_CACHE_DIR: cache };
    const traces = join(dir, 'kept');
    mkdirSync(traces);
    cpSync(RANK0, join(traces, 'r0.json.gz'));
    cpSync(RANK1, join(traces, 'r1.json.gz'));
    const set = join(traces, 'r*.json.gz');
    const run = async (command: string, extra: NodeJS.ProcessEnv = env): Promise<{ text: string; json: { stragglers: unknown; ranks: Array<{ rank: number; summary?: { steps: { count: number; medianNs: number } } }> } }> => {
      const r = await gsprof([command, set, '--json'], { env: extra });
      expect(r.code, r.stderr).toBe(0);
      return { text: r.stdout, json: JSON.parse(r.stdout) };
    };
    const entries = (): string[] => readdirSync(cache).filter((f) => f.endsWith('.duckdb'));
    const first = { summary: await run('summary'), gaps: await run('gaps') };
    expect(entries()).toHaveLength(2);
    // The databases gone, the second commands still answer, the same to the byte, and import nothing again.
    for (const f of entries()) rmSync(join(cache, f));
    for (const command of ['summary', 'gaps'] as const) {
      expect((await run(command)).text).toBe(first[command].text);
    }
    expect(entries()).toEqual([]);
    // They are what the traces give with no cache at all.
    const fresh = await run('summary', { GSPROF_NO_CACHE: '1' });
    expect(JSON.parse(fresh.text).stragglers).toEqual(first.summary.json.stragglers);
    // Rank 1 rewritten with every time doubled: its numbers are computed again, rank 0's are still kept.
    const doc = JSON.parse(gunzipSync(readFileSync(join(traces, 'r1.json.gz'))).toString('utf8')) as { traceEvents: Array<{ ts?: number; dur?: number }> };
    for (const e of doc.traceEvents) {
      if (typeof e.ts === 'number') e.ts *= 2;
      if (typeof e.dur === 'number') e.dur *= 2;
    }
    writeFileSync(join(traces, 'r1.json.gz'), gzipSync(JSON.stringify(doc)));
    const edited = (await run('summary')).json.ranks;
    const before = first.summary.json.ranks;
    expect(edited[0]!.summary).toEqual(before[0]!.summary);
    expect(edited[1]!.summary!.steps.count).toBe(before[1]!.summary!.steps.count);
    const ratio = edited[1]!.summary!.steps.medianNs / before[1]!.summary!.steps.medianNs;
    // Doubled times, rounded to whole ns: 2 within 1e-6.
    expect(Math.abs(ratio - 2)).toBeLessThan(1e-6);
    expect(entries()).toHaveLength(1);
  }, 240_000);
});
