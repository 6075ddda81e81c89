/**
 * convert and merge keep what the analyses read (issue 35): `gaps`, `summary` and `gpu_launch` give the same
 * results on every shared trace before and after JSON->pftrace, pftrace->JSON and JSON->JSON, and a merge of two
 * ranks gives each rank's launches and queues. Correlation-only launches (Kineto traces without ac2g flows) are
 * the case that broke: a .pftrace carries Kineto's `correlation` arg as `debug.correlation`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type TraceDb, gaps, kernelSummary, openTrace } from '@gsprof/profiler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasShared, sharedPath } from '../../../test/support/shared.js';
import { convertTrace } from '../src/views/convert.js';
import { mergeRanks } from '../src/views/merge.js';

const shared = hasShared();
let dir = '';
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'gsprof-keeps-')); });
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** Launch links as times relative to each other, so that a merge's shift of a rank leaves them equal. */
const LAUNCHES = `SELECT g.name AS gpu, g.dur AS gpu_dur, c.name AS launch, c.dur AS launch_dur, g.ts - c.ts AS delay
  FROM gpu_launch l JOIN slice g ON g.id = l.gpu_slice_id JOIN slice c ON c.id = l.launch_slice_id
  ORDER BY ALL`;

/**
 * The results without what a rewrite renumbers (track ids) and with lists whose order among equals is not
 * defined (the CPU work of an idle interval: two slices can overlap it equally) sorted; standard deviations to
 * 12 digits.
 */
function normal(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normal(x));
    return key === 'cpu' ? items.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : items;
  }
  // A standard deviation sums in row order, which a rewrite may change: it differed by 1 ulp (2e-16 relative).
  if (key === 'stdDevNs' && typeof v === 'number') return Number(v.toPrecision(12));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'trackId').map(([k, x]) => [k, normal(x, k)]));
}

interface Analyses { launches: unknown[]; gaps: unknown; summary: unknown }

async function analyses(path: string): Promise<Analyses> {
  const db: TraceDb = await openTrace(path);
  try {
    const g = await gaps(db, { topIntervals: 5 });
    const s = await kernelSummary(db);
    return { launches: (await db.query(LAUNCHES)).rows, gaps: normal(g), summary: normal(s) };
  } finally {
    await db.close();
  }
}

function traces(): string[] {
  const k = sharedPath('traces', 'pytorch-kineto');
  const p = sharedPath('traces', 'perfetto');
  return [
    ...readdirSync(k).filter((f) => f.endsWith('.json.gz')).map((f) => join(k, f)),
    ...readdirSync(p).filter((f) => !f.endsWith('.textproto')).map((f) => join(p, f)),
  ];
}

describe.skipIf(!shared)('convert and merge keep the analyses', () => {
  it('gaps, summary and gpu_launch are equal before and after convert, every shared trace', async () => {
    for (const src of traces()) {
      const name = basename(src).replace(/\.(json\.gz|json|pftrace)$/, '');
      const before = await analyses(src);
      const outs = [join(dir, `${name}.pftrace`), join(dir, `${name}.json`)];
      for (const o of outs) await convertTrace(src, o);
      // pftrace->JSON: the shared .pftrace files above, and a Kineto trace with launches through a .pftrace.
      if (before.launches.length > 0) {
        outs.push(join(dir, `${name}.back.json`));
        await convertTrace(outs[0]!, outs[2]!);
      }
      for (const o of outs) expect(await analyses(o), `${basename(src)} -> ${basename(o)}`).toEqual(before);
    }
  }, 600_000);

  it('a merge of two ranks has each rank\'s launches and GPU queues (correlation ids repeat across ranks)', async () => {
    const ranks = ['timeline_analysis__sampled_rank-0.json.gz', 'trace_filter__sampled_rank-1.json.gz']
      .map((f) => sharedPath('traces', 'pytorch-kineto', f));
    const parts = await Promise.all(ranks.map((r) => analyses(r)));
    // Both ranks number their correlations alike: a link across them would change these rows.
    expect(parts.every((p) => p.launches.length > 1000)).toBe(true);
    /** Each GPU queue's numbers, without its name (a merge names a queue after its rank's device). */
    const queues = (a: Analyses): unknown[] => ((a.gaps as { queues: Record<string, unknown>[] }).queues)
      .map(({ trackName: _n, ...q }) => q).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
    for (const out of ['merged.pftrace', 'merged.json']) {
      await mergeRanks(ranks, join(dir, out));
      const merged = await analyses(join(dir, out));
      const sorted = (rows: unknown[]): unknown[] => rows.map((r) => JSON.stringify(r)).sort();
      expect(sorted(merged.launches), out).toEqual(sorted(parts.flatMap((p) => p.launches)));
      expect(queues(merged), out).toEqual(parts.flatMap((p) => queues(p)).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)));
    }
  }, 300_000);
});
