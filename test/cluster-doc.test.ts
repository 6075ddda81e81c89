/**
 * docs/cluster.md's three questions, as the page writes them, on an export of two real PyTorch rank traces: run
 * through `gsprof query` on the export folder and through DuckDB over the Parquet files with the page's own view
 * definitions, the two agree, and they equal what gsprof's analyses report: the straggler per step (`summary`),
 * each rank's GPU span and idle time (`gaps`), each rank's kernel count and time (`summary`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';
import { REPO_ROOT, hasShared, sharedPath } from './support/shared.js';

const kineto = (name: string): string => sharedPath('traces', 'pytorch-kineto', name);
const doc = readFileSync(join(REPO_ROOT, 'docs', 'cluster.md'), 'utf8');

/** The ```sql block after the marker comment `<!-- kind: name -->`. */
function block(kind: string, name: string): string {
  const at = doc.indexOf(`<!-- ${kind}: ${name} -->`);
  expect(at, `${kind} ${name} in docs/cluster.md`).toBeGreaterThanOrEqual(0);
  const start = doc.indexOf('```sql\n', at) + '```sql\n'.length;
  return doc.slice(start, doc.indexOf('```', start)).trim();
}

type Row = Record<string, unknown>;
/** bigint -> number (every value here is below 2^53), other values as they are. */
const plain = (r: Row): Row => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));

describe.skipIf(!hasShared())('docs/cluster.md', () => {
  let out = '';
  const viaGsprof: Record<string, Row[]> = {};
  const viaDuckdb: Record<string, Row[]> = {};
  const questions = ['kernels', 'stragglers', 'idle'] as const;
  beforeAll(async () => {
    ensureBuilt();
    out = join(tempDir(), 'job.parquet');
    const r = await gsprof(['export', kineto('timeline_analysis__sampled_rank-0.json.gz'), kineto('trace_filter__sampled_rank-1.json.gz'), '--format', 'parquet', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    for (const q of questions) {
      const res = await gsprof(['query', out, block('cluster-query', q), '--json']);
      expect(res.code, res.stderr).toBe(0);
      viaGsprof[q] = (JSON.parse(res.stdout) as { rows: Row[] }).rows;
    }
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      await conn.run(block('cluster-setup', 'duckdb').replaceAll("'job.parquet/", `'${out}/`));
      for (const q of questions) viaDuckdb[q] = (await conn.runAndReadAll(block('cluster-query', q))).getRowObjectsJS().map((r) => plain(r as Row));
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  }, 240_000);

  it('each question gives the same rows through gsprof query and through DuckDB with the page\'s views', () => {
    for (const q of questions) {
      expect(viaGsprof[q]!.length, q).toBeGreaterThan(0);
      expect(viaDuckdb[q], q).toEqual(viaGsprof[q]);
    }
  });

  it('the straggler per step is summary\'s straggler view; the kernel table sums to summary\'s kernels per rank', async () => {
    const r = await gsprof(['summary', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      ranks: Array<{ rank: number; summary: { tracks: Array<{ kernels: Array<{ instances: number; totalTimeNs: number }> }> } }>;
      stragglers: { steps: Array<{ step: number; slowestRank: number; fastestRank: number; spreadNs: number }> };
    };
    expect(viaGsprof.stragglers!.map((x) => [x.step, x.slowest_rank, x.fastest_rank, x.spread_ns]))
      .toEqual(s.stragglers.steps.map((x) => [x.step, x.slowestRank, x.fastestRank, x.spreadNs]));
    for (const rank of s.ranks) {
      const kernels = rank.summary.tracks.flatMap((t) => t.kernels);
      const mine = viaGsprof.kernels!.filter((k) => k.rank === rank.rank);
      expect(mine.reduce((n, k) => n + Number(k.instances), 0)).toBe(kernels.reduce((n, k) => n + k.instances, 0));
      expect(mine.reduce((n, k) => n + Number(k.total_ns), 0)).toBe(kernels.reduce((n, k) => n + k.totalTimeNs, 0));
    }
  });

  it('the GPU idle time per rank is gaps\' span and idle time', async () => {
    const r = await gsprof(['gaps', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const g = JSON.parse(r.stdout) as { ranks: Array<{ rank: number; gaps: { overall: { spanNs: number; idleNs: number } } }> };
    expect(viaGsprof.idle!.map((x) => [x.rank, x.span_ns, x.idle_ns])).toEqual(g.ranks.map((x) => [x.rank, x.gaps.overall.spanNs, x.gaps.overall.idleNs]));
    expect(g.ranks.every((x) => x.gaps.overall.idleNs > 0)).toBe(true);
  });
});
