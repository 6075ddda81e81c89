/**
 * Per-step physics counters and per-env events (issue 30), on the CPU backend: a small contact scene is recorded
 * with profile() and sim-core's tracer seam while known envs are driven unstable at known steps (a blow-up, a
 * NaN, a user reset); the trace is written in both formats and read back by gsprof's importer and, where the
 * shared tools are present, by trace_processor. The events must name exactly those envs and steps, their
 * counts must equal the scene's own tallies, and every counter sample must equal what the per-env solver
 * timers of that step give.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as gs from '@gsprof/sim-core';
import { openTrace, profile, writeChromeTrace, writePerfettoTrace, type TraceModel } from '@gsprof/profiler';
import { hasShared, sharedPath } from './support/shared.js';

const NENVS = 8;
const STEPS = 24;
/** env -> the step (0-based scene step) after which it is made unstable, and how. */
const BLOWUP = { env: 2, step: 6 };
const NAN = { env: 5, step: 11 };
const USER = { env: 7, step: 15 };

const XML = `<mujoco>
  <option timestep="0.01" solver="CG" iterations="3" tolerance="1e-14"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.12"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body pos="0.5 0 0.3"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>
</mujoco>`;

interface Run {
  trace: TraceModel;
  counts: gs.EnvEventCounts;
  /** Per recorded step: the per-env timers after it. */
  timers: Float64Array[];
  dir: string;
}

let run: Run;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-physics-'));
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'm.xml'), XML);
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'error' });
  const scene = new gs.Scene({ rigidOptions: { resetOnError: true, errorCheckInterval: 1 }, profilingOptions: { showFPS: false } });
  const bodies = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'm.xml') }));
  await scene.build({ nEnvs: NENVS });
  // Envs start at different heights, so their contacts and solver work differ.
  const q = Array.from({ length: NENVS }, (_, e) => [0, 0, 0.1 + 0.02 * e, 1, 0, 0, 0, 0.5, 0, 0.1 + 0.05 * e, 1, 0, 0, 0]);
  bodies.setQpos(q);
  const prof = profile({ activities: ['cpu'] });
  gs.setTracer(prof.tracer);
  const timers: Float64Array[] = [];
  await prof.start();
  try {
    for (let s = 0; s < STEPS; s++) {
      if (s === BLOWUP.step) bodies.setDofsVelocity(new Array(12).fill(1e12), { envsIdx: [BLOWUP.env] });
      if (s === NAN.step) bodies.setDofsVelocity(new Array(12).fill(Number.NaN), { envsIdx: [NAN.env] });
      if (s === USER.step) scene.reset({ envsIdx: [USER.env] });
      scene.step();
      timers.push(scene.rigidSolver.constraintSolver.timers.data as Float64Array);
      prof.step();
    }
  } finally {
    await prof.stop();
    gs.setTracer(null);
  }
  run = { trace: prof.trace, counts: structuredClone(scene.envEventCounts), timers, dir };
  await scene.destroy();
  await gs.destroy();
}, 120_000);

afterAll(() => { if (run) rmSync(run.dir, { recursive: true, force: true }); });

function instants(trace: TraceModel, name: string): Record<string, unknown>[] {
  return trace.instants.filter((i) => i.name === name).map((i) => i.args ?? {});
}

function counterValues(trace: TraceModel, name: string): number[] {
  const track = trace.tracks.find((t) => t.kind === 'counter' && t.name === name);
  if (!track) return [];
  return trace.counters.filter((c) => c.track === track.id).sort((a, b) => a.ts - b.ts).map((c) => c.value);
}

describe('physics counters and env events in the recorded trace', () => {
  it('names exactly the envs made unstable, at the steps they were found, with their reasons', () => {
    const resets = instants(run.trace, 'env reset');
    expect(resets).toEqual([
      { env: BLOWUP.env, reason: 'limit', step: BLOWUP.step },
      { env: NAN.env, reason: 'nan', step: NAN.step },
      { env: USER.env, reason: 'user', step: USER.step },
    ]);
    const nans = instants(run.trace, 'env nan');
    expect(nans).toHaveLength(1);
    // The NaN velocities are first read by rne (cvel = cdof qvel): the bodies have no damping or spring, so
    // passive reads no qvel, and the stages before it read positions only.
    expect(nans).toEqual([{ env: NAN.env, stage: 'rne', step: NAN.step }]);
  });

  it('has as many events as the scene counted', () => {
    const c = run.counts;
    expect(instants(run.trace, 'env reset')).toHaveLength(c.resets.nan + c.resets.limit + c.resets.user);
    expect(instants(run.trace, 'env nan')).toHaveLength(c.nan);
    expect(instants(run.trace, 'solver not converged')).toHaveLength(c.notConverged);
    expect(c.resets).toEqual({ nan: 1, limit: 1, user: 1 });
    // Three CG iterations to a tolerance of 1e-14 do not settle every contact: the test means something only if some are unconverged.
    expect(c.notConverged).toBeGreaterThan(0);
  });

  it('samples every counter once per step, equal to the per-env solver timers of that step', () => {
    const L = gs.TIMER_LABELS as readonly string[];
    const slot = (t: Float64Array, label: string): number[] => Array.from(t.subarray(L.indexOf(label) * NENVS, (L.indexOf(label) + 1) * NENVS));
    const expected = {
      'solver iterations (max)': run.timers.map((t) => slot(t, 'iterations').reduce((a, b) => Math.max(a, b), 0)),
      'solver iterations (mean)': run.timers.map((t) => slot(t, 'iterations').reduce((a, b) => a + b, 0) / NENVS),
      contacts: run.timers.map((t) => slot(t, 'contacts').reduce((a, b) => a + b, 0)),
      'contacts (max per env)': run.timers.map((t) => slot(t, 'contacts').reduce((a, b) => Math.max(a, b), 0)),
      constraints: run.timers.map((t) => slot(t, 'nefc').reduce((a, b) => a + b, 0)),
      'solver not converged': run.timers.map((t) => slot(t, 'not_converged').filter((x) => x !== 0).length),
      'env resets': Array.from({ length: STEPS }, (_, s) => ([BLOWUP.step, NAN.step, USER.step].includes(s) ? 1 : 0)),
    };
    for (const [name, values] of Object.entries(expected)) expect(counterValues(run.trace, name), name).toEqual(values);
    // Each unconverged env-step is one event naming that env and step.
    const events = instants(run.trace, 'solver not converged').map((a) => `${a.step}:${a.env}`);
    const fromTimers = run.timers.flatMap((t, s) => slot(t, 'not_converged').flatMap((x, e) => (x !== 0 ? [`${s}:${e}`] : [])));
    expect(events).toEqual(fromTimers);
  });
});

const EVENTS_SQL = `select s.name, s.ts,
  (select int_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.env', 'debug.env')) as env,
  (select int_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.step', 'debug.step')) as step,
  (select string_value from args a where a.arg_set_id = s.arg_set_id and a.key in ('args.reason', 'debug.reason', 'args.stage', 'debug.stage')) as what
  from slice s where s.name in ('env reset', 'env nan', 'solver not converged') order by s.ts, s.name, env`;
const COUNTERS_SQL = `select t.name, count(*) as n, sum(c.value) as total from counter c join track t on c.track_id = t.id group by t.name order by t.name`;


/** The events and counter tracks a reader should find: what the trace model holds, in its order. */
function expectedRows(trace: TraceModel, json: boolean): { events: string[]; counters: string[] } {
  const events = [...trace.instants].filter((e) => e.category === gs.ENV_EVENT_CATEGORY).sort((a, b) => a.ts - b.ts)
    .map((e) => `${e.name}|${e.args!.env}|${e.args!.step}|${e.args!.reason ?? e.args!.stage ?? ''}`);
  const counters = trace.tracks.filter((t) => t.kind === 'counter').map((t) => {
    const samples = trace.counters.filter((c) => c.track === t.id);
    // A Chrome JSON counter is read as "<name> <arg key>": a one-word name is written with the key "value".
    const name = json && !t.name.includes(' ') ? `${t.name} value` : t.name;
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
        expect({ events: ev, counters: co.sort() }).toEqual(expectedRows(run.trace, ext === 'json'));
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
