/**
 * Per-step physics counters and per-env events (issue 30), on the CPU backend (physics-counters-gpu.test.ts: the
 * GPU's): a small contact scene (support/unstable-scene.ts) is recorded with profile() and sim-core's tracer seam
 * while known envs are driven unstable at known steps (a blow-up, a NaN, a user reset). The events must name
 * exactly those envs and steps, their counts must equal the scene's own tallies, and every counter sample must
 * equal what the per-env solver timers of that step give; the trace is written in both formats and read back by
 * gsprof's importer and, where the shared tools are present, by trace_processor.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as gs from '@gsprof/sim-core';
import { openTrace, writeChromeTrace, writePerfettoTrace, type TraceModel } from '@gsprof/profiler';
import { hasShared, sharedPath } from './support/shared.js';
import { itNamesTheUnstableEnvs, recordUnstableScene, type UnstableRun } from './support/unstable-scene.js';

let run: UnstableRun;

beforeAll(async () => {
  run = await recordUnstableScene('cpu');
}, 120_000);

afterAll(() => { if (run) rmSync(run.dir, { recursive: true, force: true }); });

describe('physics counters and env events in the recorded trace (CPU)', () => {
  itNamesTheUnstableEnvs(() => run, 'cpu');
});

const EVENTS_SQL = `select s.name, s.ts,
  (select int_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.env', 'debug.env')) as env,
  (select int_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.step', 'debug.step')) as step,
  (select string_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.reason', 'debug.reason', 'args.stage', 'debug.stage')) as what
  from slice s where s.name in ('env reset', 'env nan', 'solver not converged') order by s.ts, s.name, env`;
const COUNTERS_SQL = `select t.name, count(*) as n, sum(c.value) as total from counter c join track t on c.track_id = t.id group by t.name order by t.name`;


/** The events and counter tracks a reader should find: what the trace model holds, in its order. */
/** `valueSuffix`: trace_processor reads a Chrome JSON counter as "<name> <arg key>", and a one-word name is written
 *  with the key "value"; gsprof's importer reads the name gsprof wrote (its metadata keeps it). */
function expectedRows(trace: TraceModel, valueSuffix: boolean): { events: string[]; counters: string[] } {
  const events = [...trace.instants].filter((e) => e.category === gs.ENV_EVENT_CATEGORY).sort((a, b) => a.ts - b.ts)
    .map((e) => `${e.name}|${e.args!.env}|${e.args!.step}|${e.args!.reason ?? e.args!.stage ?? ''}`);
  const counters = trace.tracks.filter((t) => t.kind === 'counter').map((t) => {
    const samples = trace.counters.filter((c) => c.track === t.id);
    const name = valueSuffix && !t.name.includes(' ') ? `${t.name} value` : t.name;
    return `${name}|${samples.length}|${samples.reduce((a, c) => a + c.value, 0).toFixed(6)}`;
  });
  return { events, counters: counters.sort() };
}

describe('both trace formats', () => {
  const formats = [['pftrace', writePerfettoTrace], ['json', writeChromeTrace]] as const;
  for (const [ext, write] of formats) {
    it(`${ext}: gsprof's importer reads the same events and counters`, async () => {
      const file = join(run.dir, `t.${ext}`);
      await write(run.trace, file);
      const db = await openTrace(file);
      try {
        const ev = (await db.query(EVENTS_SQL)).rows.map((r) => `${r.name}|${r.env}|${r.step}|${r.what ?? ''}`);
        const co = (await db.query(COUNTERS_SQL)).rows.map((r) => `${r.name}|${r.n}|${Number(r.total).toFixed(6)}`);
        expect({ events: ev, counters: co.sort() }).toEqual(expectedRows(run.trace, false));
      } finally {
        await db.close();
      }
    });

    it.skipIf(!hasShared())(`${ext}: trace_processor reads the same events and counters`, async () => {
      const file = join(run.dir, `t.${ext}`);
      if (!existsSync(file)) await write(run.trace, file);
      const tp = sharedPath('tools', 'trace_processor_shell');
      const csv = (sql: string): string[][] => execFileSync(tp, ['-Q', sql, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim().split('\n').slice(1).map((line) => line.split(',').map((c) => c.replace(/^"|"$/g, '')));
      const ev = csv(EVENTS_SQL).map(([name, , env, step, what]) => `${name}|${env}|${step}|${what === '[NULL]' ? '' : what}`);
      const co = csv(COUNTERS_SQL).map(([name, n, total]) => `${name}|${n}|${Number(total).toFixed(6)}`);
      expect({ events: ev, counters: co.sort() }).toEqual(expectedRows(run.trace, ext === 'json'));
    });
  }
});
