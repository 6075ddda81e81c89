import { describe, test } from 'vitest';
import { GpuSim } from '../../src/gpu/runtime.js';
import { STAGES } from '../../src/stages/registry.js';
import { lcg } from '../../../../test/support/random.js';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { fullM, loadMujoco, modelFromMujoco } from '../helpers/mujoco.js';
import { gpuOrSkip, hasGpu } from './gpu-env.js';

const N = 5;
const cap = { maxContacts: 8, maxEfc: 32 };
/** The smooth (constraint-free) stages' kernels, in the pipeline's order. */
const SMOOTH = new Set(['kinematics', 'com', 'crb', 'factor_m', 'passive', 'rne', 'actuation', 'smooth_acc']);
const ORDER = STAGES.filter((s) => SMOOTH.has(s.name)).flatMap((s) => (s.wgsl ? [s.wgsl] : []));

/** Host layout [k * N + e] from per-env rows. */
function soa(rows: ArrayLike<number>[]): Float32Array {
  const size = rows[0]!.length;
  const out = new Float32Array(size * N);
  rows.forEach((r, e) => { for (let k = 0; k < size; k++) out[k * N + e] = r[k]!; });
  return out;
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, e: number, what: string, rel = 2e-4, abs = 2e-4): void {
  const size = want.length;
  let scale = 0;
  for (let k = 0; k < size; k++) scale = Math.max(scale, Math.abs(want[k]!));
  for (let k = 0; k < size; k++) {
    const g = got[k * N + e]!;
    const w = want[k]!;
    // Written so that a NaN on either side fails (every comparison with NaN is false).
    if (!(Math.abs(g - w) <= abs + rel * scale)) throw new Error(`${what}[${k}] env ${e}: gpu ${g} vs mujoco ${w}`);
  }
}

describe.skipIf(!hasGpu || !hasShared())('WGSL smooth stages against MuJoCo', { timeout: 600_000 }, async () => {
  for (const [label, file] of [
    ['Franka', 'models/franka_emika_panda_nomesh/mjx_scene.xml'],
    ['ANYmal (free base)', 'models/anybotics_anymal_c_nomesh/scene_mjx.xml'],
  ] as const) {
    for (const performanceMode of [false, true]) {
      test(`${label}, performanceMode=${performanceMode}: every smooth stage matches mj_forward per env`, async () => {
        const gpu = (await gpuOrSkip())!;
        const { mj, m, d } = await loadMujoco(sharedPath(file));
        const model = modelFromMujoco(mj, m);
        const sim = new GpuSim(gpu, model, N, { performanceMode, capacities: cap });
        await sim.compile(ORDER);
        const uniform = lcg(7);
        const rnd = () => uniform() * 2 - 1;
        const want: Record<string, Float64Array[]> = {};
        const qpos: number[][] = []; const qvel: number[][] = []; const ctrl: number[][] = [];
        const keep = (name: string, arr: ArrayLike<number>): void => {
          want[name] ??= [];
          want[name].push(Float64Array.from(arr));
        };
        for (let e = 0; e < N; e++) {
          mj.mj_resetData(m, d);
          const q = Array.from(model.qpos0 as Float64Array);
          for (let j = 0; j < model.njnt; j++) {
            const a = model.jntQposadr[j]!;
            const t = model.jntType[j]!;
            if (t === 3 || t === 2) q[a] = q[a]! + 0.5 * rnd();
            if (t === 0) { q[a] = 0.2 * rnd(); q[a + 2] = 0.5 + 0.1 * rnd(); const v = [1, 0.3 * rnd(), 0.3 * rnd(), 0.3 * rnd()]; const n = Math.hypot(...v); for (let k = 0; k < 4; k++) q[a + 3 + k] = v[k]! / n; }
          }
          const v = Array.from({ length: model.nv }, () => rnd());
          const c = Array.from({ length: model.nu }, () => rnd());
          d.qpos.set(q); d.qvel.set(v); d.ctrl.set(c);
          mj.mj_forward(m, d);
          qpos.push(q); qvel.push(v); ctrl.push(c);
          for (const f of ['xpos', 'xmat', 'xipos', 'subtree_com', 'cinert', 'cdof', 'geom_xpos', 'geom_xmat', 'qfrc_bias', 'qfrc_passive', 'qfrc_actuator', 'qacc_smooth', 'cvel', 'cdof_dot']) keep(f, d[f]);
          keep('qM', fullM(mj, m, d));
        }
        sim.writeField('qpos', soa(qpos)); sim.writeField('qvel', soa(qvel)); sim.writeField('ctrl', soa(ctrl));
        sim.writeField('dofForceRange', soa(Array.from({ length: N }, () => Array.from({ length: 2 * model.nv }, (_, k) => (k % 2 ? Infinity : -Infinity)))));
        sim.step();
        const map: Record<string, string> = { xpos: 'xpos', xmat: 'xmat', xipos: 'xipos', subtree_com: 'subtreeCom', cinert: 'cinert', cdof: 'cdof', geom_xpos: 'geomXpos', geom_xmat: 'geomXmat', qfrc_bias: 'qfrcBias', qfrc_passive: 'qfrcPassive', qfrc_actuator: 'qfrcActuator', qacc_smooth: 'qaccSmooth', cvel: 'cvel', cdof_dot: 'cdofDot', qM: 'qM' };
        for (const [mjName, ours] of Object.entries(map)) {
          const got = await sim.readField(ours);
          const rel = mjName === 'qacc_smooth' ? 2e-3 : 2e-4;
          for (let e = 0; e < N; e++) expectClose(got, want[mjName]![e]!, e, ours, rel);
        }
        sim.destroy();
      });
    }
  }

  test('a NaN ctrl in one env zeroes every ctrl of that env only, as MuJoCo does', async () => {
    const gpu = (await gpuOrSkip())!;
    const { mj, m, d } = await loadMujoco(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const model = modelFromMujoco(mj, m);
    const sim = new GpuSim(gpu, model, N, { performanceMode: false, capacities: cap });
    await sim.compile(ORDER);
    const ctrl = Array.from({ length: N }, () => Array.from({ length: model.nu }, () => 0.5));
    ctrl[2]![3] = Number.NaN;
    mj.mj_resetData(m, d);
    d.ctrl.set(ctrl[0]!);
    mj.mj_forward(m, d);
    const want = Float64Array.from(d.actuator_force);
    mj.mj_resetData(m, d);
    d.ctrl.set(ctrl[2]!);
    mj.mj_forward(m, d);
    const wantZero = Float64Array.from(d.actuator_force);
    sim.writeField('qpos', soa(Array.from({ length: N }, () => Array.from(model.qpos0))));
    sim.writeField('ctrl', soa(ctrl));
    sim.writeField('dofForceRange', soa(Array.from({ length: N }, () => Array.from({ length: 2 * model.nv }, (_, k) => (k % 2 ? Infinity : -Infinity)))));
    sim.step();
    const got = await sim.readField('actuatorForce');
    expectClose(got, want, 0, 'actuatorForce');
    expectClose(got, wantZero, 2, 'actuatorForce (NaN env)');
    expectClose(got, want, 3, 'actuatorForce');
    sim.destroy();
  });
});
