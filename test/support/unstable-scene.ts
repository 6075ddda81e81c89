/**
 * The unstable scene of the physics-counter tests (issue 30), recorded on either backend: 8 envs of a box and a
 * ball on a plane, the CG solver held to 3 iterations at a tolerance of 1e-14 (so some envs stop unconverged), and
 * known envs driven unstable at known steps: a velocity of 1e14 (a blow-up), NaN velocities, and a user reset.
 * resetOnError resets the failing envs. On the GPU every step is followed by scene.sync(), so that the error check
 * sees the step's flags and the per-env timers are those of the step.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import * as gs from '@gsprof/sim-core';
import { profile, type TraceModel } from '@gsprof/profiler';

export const NENVS = 8;
export const STEPS = 24;
/** env -> the step (0-based scene step) before which it is made unstable, and how. */
export const BLOWUP = { env: 2, step: 6 };
export const NAN = { env: 5, step: 11 };
export const USER = { env: 7, step: 15 };

const XML = `<mujoco>
  <option timestep="0.01" solver="CG" iterations="3" tolerance="1e-14"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.12"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body pos="0.5 0 0.3"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>
</mujoco>`;

export interface UnstableRun {
  trace: TraceModel;
  counts: gs.EnvEventCounts;
  /** Per recorded step: the per-env timers after it. */
  timers: Float64Array[];
  dir: string;
}

export async function recordUnstableScene(backend: 'cpu' | 'gpu'): Promise<UnstableRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-physics-'));
  writeFileSync(join(dir, 'm.xml'), XML);
  await gs.init({ backend, precision: backend === 'gpu' ? '32' : '64', loggingLevel: 'error' });
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
      // 1e14 m/s moves the box 1e12 m in one step: past the blow-up threshold (1e10) in qpos, which is what the
      // GPU checks, as well as in qvel.
      if (s === BLOWUP.step) bodies.setDofsVelocity(new Array(12).fill(1e14), { envsIdx: [BLOWUP.env] });
      if (s === NAN.step) bodies.setDofsVelocity(new Array(12).fill(Number.NaN), { envsIdx: [NAN.env] });
      if (s === USER.step) scene.reset({ envsIdx: [USER.env] });
      scene.step();
      if (backend === 'gpu') await scene.sync();
      timers.push(scene.rigidSolver.constraintSolver.timers.data as Float64Array);
      await prof.step();
    }
  } finally {
    await prof.stop();
    gs.setTracer(null);
  }
  const run = { trace: prof.trace, counts: structuredClone(scene.envEventCounts), timers, dir };
  await scene.destroy();
  await gs.destroy();
  return run;
}

export function instants(trace: TraceModel, name: string): Record<string, unknown>[] {
  return trace.instants.filter((i) => i.name === name).map((i) => i.args ?? {});
}

export function counterValues(trace: TraceModel, name: string): number[] {
  const track = trace.tracks.find((t) => t.kind === 'counter' && t.name === name);
  if (!track) return [];
  return trace.counters.filter((c) => c.track === track.id).sort((a, b) => a.ts - b.ts).map((c) => c.value);
}

function slot(t: Float64Array, label: string): number[] {
  const k = (gs.TIMER_LABELS as readonly string[]).indexOf(label);
  return Array.from(t.subarray(k * NENVS, (k + 1) * NENVS));
}

/** Each counter track's samples as the per-env solver timers of every step give them (resets: the script's). */
export function countersFromTimers(run: UnstableRun): Record<string, number[]> {
  const t = run.timers;
  return {
    'solver iterations (max)': t.map((x) => slot(x, 'iterations').reduce((a, b) => Math.max(a, b), 0)),
    'solver iterations (mean)': t.map((x) => slot(x, 'iterations').reduce((a, b) => a + b, 0) / NENVS),
    contacts: t.map((x) => slot(x, 'contacts').reduce((a, b) => a + b, 0)),
    'contacts (max per env)': t.map((x) => slot(x, 'contacts').reduce((a, b) => Math.max(a, b), 0)),
    constraints: t.map((x) => slot(x, 'nefc').reduce((a, b) => a + b, 0)),
    'solver not converged': t.map((x) => slot(x, 'not_converged').filter((v) => v !== 0).length),
    'env resets': Array.from({ length: STEPS }, (_, s) => ([BLOWUP.step, NAN.step, USER.step].includes(s) ? 1 : 0)),
  };
}

/** `step:env:iterations:improvement` of every unconverged env-step, from the timers. */
export function unconvergedFromTimers(run: UnstableRun): string[] {
  return run.timers.flatMap((t, s) => {
    const it = slot(t, 'iterations'), imp = slot(t, 'improvement');
    return slot(t, 'not_converged').flatMap((x, e) => (x !== 0 ? [`${s}:${e}:${it[e]}:${imp[e]}`] : []));
  });
}

/** The same, from the trace's 'solver not converged' events. */
export function unconvergedEvents(trace: TraceModel): string[] {
  return instants(trace, 'solver not converged').map((a) => `${a.step}:${a.env}:${a.iterations}:${a.improvement}`);
}

/** The checks both backends pass: the events name exactly the envs made unstable and the steps, their counts
 *  are the scene's tallies, and the counters are the per-env timers' figures. */
export function itNamesTheUnstableEnvs(getRun: () => UnstableRun, backend: 'cpu' | 'gpu'): void {
  it('names exactly the envs made unstable, at the steps they were found, with their reasons', () => {
    const resets = instants(getRun().trace, 'env reset');
    expect(resets).toEqual([
      { env: BLOWUP.env, reason: 'limit', step: BLOWUP.step },
      { env: NAN.env, reason: 'nan', step: NAN.step },
      { env: USER.env, reason: 'user', step: USER.step },
    ]);
    const nans = instants(getRun().trace, 'env nan');
    expect(nans).toHaveLength(1);
    // The stages before passive read positions only. The bodies have no damping: the CPU's passive skips their
    // dofs, so the NaN velocities are first read by rne (cvel = cdof qvel); the GPU's passive kernel computes
    // -damping * qvel for every dof, and 0 * NaN is NaN.
    expect(nans).toEqual([{ env: NAN.env, stage: backend === 'cpu' ? 'rne' : 'passive', step: NAN.step }]);
  });

  it('has as many events as the scene counted', () => {
    const c = getRun().counts;
    expect(instants(getRun().trace, 'env reset')).toHaveLength(c.resets.nan + c.resets.limit + c.resets.user);
    expect(instants(getRun().trace, 'env nan')).toHaveLength(c.nan);
    expect(instants(getRun().trace, 'solver not converged')).toHaveLength(c.notConverged);
    expect(c.resets).toEqual({ nan: 1, limit: 1, user: 1 });
    // Three CG iterations to a tolerance of 1e-14 do not settle every contact: the test means something only if some are unconverged.
    expect(c.notConverged).toBeGreaterThan(0);
  });

  it('samples every counter once per step, equal to the per-env solver timers of that step', () => {
    for (const [name, values] of Object.entries(countersFromTimers(getRun()))) expect(counterValues(getRun().trace, name), name).toEqual(values);
    // Each unconverged env-step is one event naming that env and step, with its iterations and improvement.
    expect(unconvergedEvents(getRun().trace)).toEqual(unconvergedFromTimers(getRun()));
  });
}
