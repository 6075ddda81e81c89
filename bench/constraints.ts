/**
 * Cost of the constraint side of the CPU pipeline (collision, make_constraint, solve) per env-step, on the
 * Menagerie Franka under PD control (no contact, the finger equality row) and ANYmal C standing on its four
 * feet (4 contacts, 16 pyramidal rows), with the solver's own counters from the timers. Usage:
 *   node --conditions=@gsprof/source --import tsx bench/constraints.ts [seconds per size, default 1]
 * Times are this process's CPU time per env (a shared machine inflates them less than wall time would); each
 * constraint stage is timed alone, repeated on the settled state.
 */
import { loadMJCF } from '../packages/sim-core/src/loaders/mjcf.js';
import { setConst } from '../packages/sim-core/src/physics/setconst.js';
import { makeData } from '../packages/sim-core/src/data/make-data.js';
import { CPU_STAGES } from '../packages/sim-core/src/cpu/step.js';
import type { Model } from '../packages/sim-core/src/model/model.js';
import type { Data } from '../packages/sim-core/src/data/data.js';
import { sharedPath } from '../test/support/shared.js';

const seconds = Number(process.argv[2] ?? 1);
const WATCHED = ['collision', 'make_constraint', 'solve'];

interface Scene { name: string; model: Model; init: (d: Data) => void }

function franka(): Scene {
  const model = setConst(loadMJCF(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml')).model);
  model.opt.timestep = 0.01;
  const target = [0, 0, 0, -1, 0, 1, 0, 0.02];
  return { name: 'franka', model, init: (d) => { for (let u = 0; u < model.nu; u++) d.ctrl.fill(target[u]!, u * d.nEnvs, (u + 1) * d.nEnvs); } };
}

function anymal(): Scene {
  const model = setConst(loadMJCF(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml')).model);
  model.opt.timestep = 0.004;
  const key = model.keyQpos.subarray(0, model.nq);
  return {
    name: 'anymal', model,
    init: (d) => {
      const n = d.nEnvs;
      for (let k = 0; k < model.nq; k++) d.qpos.fill(key[k]!, k * n, (k + 1) * n);
      for (let u = 0; u < 12; u++) d.ctrl.fill(key[7 + u]!, u * n, (u + 1) * n);
    },
  };
}

/** State after `steps` steps of one env, replicated into every env of a fresh Data (a settled robot). */
function settled(scene: Scene, nEnvs: number, steps: number): Data {
  const { model } = scene;
  const one = makeData(model, 1, '64');
  scene.init(one);
  for (let i = 0; i < steps; i++) for (const s of CPU_STAGES) s.run(model, one, 0, 1);
  const d = makeData(model, nEnvs, '64');
  scene.init(d);
  for (const f of ['qpos', 'qvel', 'qaccWarmstart'] as const) {
    const src = one[f], dst = d[f];
    for (let k = 0; k < src.length; k++) dst.fill(src[k]!, k * nEnvs, (k + 1) * nEnvs);
  }
  return d;
}

/** CPU ns per env of `body`, repeated for about `ms` of wall time. */
function cpuPerEnv(nEnvs: number, ms: number, body: () => void): number {
  body();
  let reps = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < ms) { body(); reps++; }
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) * 1e3) / (reps * nEnvs);
}

function run(scene: Scene, nEnvs: number): void {
  const { model } = scene;
  const d = settled(scene, nEnvs, 250);
  const ms = seconds * 1000 / 4;
  // the whole step, then each constraint stage alone, repeated on the same settled state (they do not
  // advance it), so a busy machine's other processes do not leak into the split
  const stepOnce = (): void => { for (const s of CPU_STAGES) s.run(model, d, 0, nEnvs); };
  const warm = performance.now();
  while (performance.now() - warm < 300) stepOnce();
  const step = cpuPerEnv(nEnvs, ms, stepOnce);
  let iters = 0, rows = 0, lsEvals = 0;
  for (let e = 0; e < nEnvs; e++) {
    iters += d.timers[nEnvs + e]!;
    lsEvals += d.timers[4 * nEnvs + e]!;
    rows += d.timers[5 * nEnvs + e]!;
  }
  const per = WATCHED.map((name) => {
    const stage = CPU_STAGES.find((s) => s.name === name)!;
    return cpuPerEnv(nEnvs, ms, () => stage.run(model, d, 0, nEnvs));
  });
  const f = (ns: number): string => ns.toFixed(0).padStart(6);
  console.log(`${scene.name.padEnd(7)} nEnvs ${String(nEnvs).padStart(5)}: step ${f(step)} ns | ` +
    WATCHED.map((w, i) => `${w} ${f(per[i]!)}`).join(' | ') +
    ` | rows ${(rows / nEnvs).toFixed(1)} iters ${(iters / nEnvs).toFixed(2)} ls ${(lsEvals / nEnvs).toFixed(1)}`);
}

console.log('CPU ns per env-step, constraint stages (main thread, f64)');
for (const scene of [franka(), anymal()]) for (const n of [1, 64, 512, 4096]) run(scene, n);
