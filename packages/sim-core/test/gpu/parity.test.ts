/**
 * The whole WebGPU pipeline (every kernel, in the CPU pipeline's order) against the CPU pipeline in f32 for
 * 200 steps: the same scenes as the CPU's MuJoCo parity tests. Controls are set on the CPU Data and mirrored to
 * the GPU.
 */
import { describe, expect, test } from 'vitest';
import { CPU_STAGES, stepCpu } from '../../src/cpu/step.js';
import { STAGES } from '../../src/stages/registry.js';
import { DofCtrlMode, type Data } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import { GPU_KERNELS } from '../../src/gpu/kernels/index.js';
import { GpuSim, type KernelDef } from '../../src/gpu/runtime.js';
import type { Model } from '../../src/model/model.js';
import { setConst } from '../../src/physics/setconst.js';
import { lcg } from '../../../../test/support/random.js';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { loadMujoco, loadMujocoXml, modelFromMujoco } from '../helpers/mujoco.js';
import { gpuOrSkip, hasGpu } from './gpu-env.js';
import { upload } from './upload.js';
import { PAIR_DEFAULTS_QVEL, PAIR_DEFAULTS_XML, PAIR_ONLY_XML, PAIR_OVERRIDE_QVEL, PAIR_OVERRIDE_XML } from '../parity/pair-models.js';
import { ACTFRC_CTRL, ACTFRC_XML, BALL_CHAIN_XML, BOX_TOWER_XML, CONNECT_XML, TENDON_ACTUATOR_CTRL, TENDON_ACTUATOR_XML, TENDON_XML, WELD_XML } from '../parity/models.js';

const STEPS = 200;
/**
 * Largest GPU-vs-CPU differences measured over these six scenes on lavapipe: position 5.4e-7 (the pile),
 * velocity 1.2e-5 (Franka, 64 envs). The bounds give a 20x margin for other GPUs' f32 rounding (fused
 * multiply-add, transcendental precision). NaN fails them (`toBeLessThan` is false for NaN).
 */
const POS_TOL = 1e-5;
const VEL_TOL = 2.5e-4;
const CHECK_EVERY = 50;
const N = 4;

/** Every kernel, ordered exactly as the CPU pipeline's stages. */
const BY_NAME = new Map<string, KernelDef>(
  GPU_KERNELS.map((k) => [k.name, k]),
);
// The stages with a WGSL kernel (the CPU-only `sensor` stage has none, and these models have no sensors).
const GPU_STAGE = new Set(STAGES.filter((s) => s.wgsl).map((s) => s.name));
const PIPELINE: KernelDef[] = CPU_STAGES.filter((s) => GPU_STAGE.has(s.name)).map((s) => {
  const k = BY_NAME.get(s.name);
  if (!k) throw new Error(`no WGSL kernel for CPU stage '${s.name}'`);
  return k;
});

const HOME = [0, 0, 0, -1.57079, 0, 1.57079, -0.7853, 0.04, 0.04];
const TARGET_CTRL = [0, 0, 0, -1, 0, 1, 0, 0.02];
const FRANKA = 'models/franka_emika_panda_nomesh/mjx_scene.xml';
const ANYMAL = 'models/anybotics_anymal_c_nomesh/scene_mjx.xml';
const BOX = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body pos="0 0 0.3" euler="0.3 0.2 0"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1"/></body>
</worldbody></mujoco>`;
/** Several free bodies (one island each, two joined when the ball meets the capsule) and every narrow phase. */
const PILE = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="stepbody" pos="0 1 0.05"><geom name="step" type="box" size="0.2 0.2 0.05"/></body>
  <body name="box" pos="0 0 0.2" euler="0.3 0.2 0"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1"/></body>
  <body pos="1 0 0.15"><freejoint/><geom type="sphere" size="0.07" mass="0.5"/></body>
  <body name="pill" pos="1.05 0 0.35" euler="0 1.2 0"><freejoint/><geom type="capsule" size="0.04 0.1" mass="0.7"/></body>
  <body name="can" pos="-1 0 0.2" euler="0.4 0 0"><freejoint/><geom type="cylinder" size="0.06 0.08" mass="0.8"/></body>
  <body name="rod" pos="0.05 1 0.25" euler="1.4 0 0.3"><freejoint/><geom type="capsule" size="0.04 0.15" mass="0.6"/></body>
</worldbody><contact>
  <!-- pairs with no collision code in sim-core (box-box, box-cylinder, capsule-cylinder); they never touch here -->
  <exclude body1="stepbody" body2="box"/><exclude body1="stepbody" body2="can"/><exclude body1="box" body2="can"/>
  <exclude body1="pill" body2="can"/><exclude body1="rod" body2="can"/>
</contact></mujoco>`;

/** Largest state differences, and the largest contact and row counts each side saw at the checkpoints. */
interface Drift { pos: number; vel: number; maxNcon: number; maxNefc: number; gpuMaxNcon: number; gpuMaxNefc: number }

/** Steps the CPU (f32) and the GPU side by side; returns the largest position and velocity differences. */
async function runBoth(model: Model, d: Data): Promise<Drift> {
  const gpu = (await gpuOrSkip())!;
  const n = d.nEnvs;
  const sim = new GpuSim(gpu, model, n, { performanceMode: false, capacities: { maxContacts: d.maxContacts, maxEfc: d.maxEfc } });
  try {
    await sim.compile(PIPELINE);
    upload(sim, d);
    const drift: Drift = { pos: 0, vel: 0, maxNcon: 0, maxNefc: 0, gpuMaxNcon: 0, gpuMaxNefc: 0 };
    for (let done = 0; done < STEPS; done += CHECK_EVERY) {
      for (let s = 0; s < CHECK_EVERY; s++) {
        stepCpu(model, d, 0, n);
        for (let e = 0; e < n; e++) {
          drift.maxNcon = Math.max(drift.maxNcon, d.ncon[e]!);
          drift.maxNefc = Math.max(drift.maxNefc, d.nefc[e]!);
        }
      }
      sim.step(CHECK_EVERY);
      const qpos = await sim.readField('qpos');
      const qvel = await sim.readField('qvel');
      const flags = await sim.readField('errFlags');
      const ncon = await sim.readField('ncon');
      const nefc = await sim.readField('nefc');
      for (let e = 0; e < n; e++) {
        drift.gpuMaxNcon = Math.max(drift.gpuMaxNcon, ncon[e]!);
        drift.gpuMaxNefc = Math.max(drift.gpuMaxNefc, nefc[e]!);
      }
      for (let e = 0; e < n; e++) expect(flags[e], `env ${e}: GPU error flags after ${done + CHECK_EVERY} steps`).toBe(0);
      for (let k = 0; k < qpos.length; k++) drift.pos = Math.max(drift.pos, Math.abs(qpos[k]! - d.qpos[k]!));
      for (let k = 0; k < qvel.length; k++) drift.vel = Math.max(drift.vel, Math.abs(qvel[k]! - d.qvel[k]!));
    }
    return drift;
  } finally {
    sim.destroy();
  }
}

function fill(d: Data, values: ArrayLike<number>, field: 'qpos' | 'ctrl'): void {
  const n = d.nEnvs;
  for (let e = 0; e < n; e++) for (let k = 0; k < values.length; k++) d[field][k * n + e] = values[k]!;
}

/** MuJoCo's compiled model of `xml` with sim-core's constants, and f32 Data of N envs at qpos0 (makeData's start). */
async function xmlScene(xml: string, maxContacts?: number): Promise<{ model: Model; d: Data }> {
  const { mj, m } = await loadMujocoXml(xml);
  const model = setConst(modelFromMujoco(mj, m));
  return { model, d: makeData(model, N, '32', maxContacts === undefined ? {} : { maxContacts }) };
}

describe.skipIf(!hasGpu)('GPU pipeline against the f32 CPU pipeline, 200 steps', { timeout: 600_000 }, () => {
  test('a box dropped on a plane: lands and settles the same way', async () => {
    const { model, d } = await xmlScene(BOX);
    const drift = await runBoth(model, d);
    expect(drift.maxNcon).toBeGreaterThan(0); // it hit the floor within the run
    expect(drift.gpuMaxNcon).toBeGreaterThan(0);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a free joint with stiffness springs back toward its reference, position and rotation (issue 13)', async () => {
    // no floor and no gravity: only the spring moves the body, which starts displaced and rotated from qpos0
    const { model, d } = await xmlScene(`<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody>
      <body pos="0 0 0.5"><joint type="free" stiffness="3" damping="0.01"/><geom type="box" size="0.1 0.08 0.05" mass="1"/></body>
    </worldbody></mujoco>`);
    const start = [0.1, -0.05, 0.6, Math.cos(0.4), Math.sin(0.4) * 0.6, 0, Math.sin(0.4) * 0.8];
    fill(d, start, 'qpos');
    const drift = await runBoth(model, d);
    // the CPU side really moved (its spring is held to MuJoCo by the stage tests); without the GPU's free-joint
    // spring the GPU body would stay put and drift by the whole swing
    expect(Math.abs(d.qpos[0]! - start[0]!)).toBeGreaterThan(0.01);
    expect(Math.abs(d.qpos[3 * N]! - start[3]!)).toBeGreaterThan(0.01);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a four-bar linkage closed by a connect equality, and a bob hung from the world (issue 13)', async () => {
    const { model, d } = await xmlScene(CONNECT_XML);
    for (let e = 0; e < N; e++) d.qvel[e] = 2; // swing the crank
    const drift = await runBoth(model, d);
    expect(drift.maxNefc).toBeGreaterThanOrEqual(6); // both connects
    expect(drift.gpuMaxNefc).toBe(drift.maxNefc);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a tool welded to a swinging arm, and a box pulled to a pose by a weld (issue 13)', async () => {
    const { model, d } = await xmlScene(WELD_XML);
    for (let e = 0; e < N; e++) { d.qvel[e] = 3; d.qvel[N + e] = -2; } // swing the arm
    const drift = await runBoth(model, d);
    expect(drift.maxNefc).toBeGreaterThanOrEqual(12); // both welds, six rows each
    expect(drift.gpuMaxNefc).toBe(drift.maxNefc);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a chain through a tendon limit, with tendon friction and a tendon spring-damper (issue 13)', async () => {
    const { model, d } = await xmlScene(TENDON_XML);
    for (let e = 0; e < N; e++) { d.qvel[e] = 4; d.qvel[2 * N + e] = -3; } // into the coupling's limit
    const drift = await runBoth(model, d);
    expect(drift.maxNefc).toBeGreaterThanOrEqual(3); // two friction rows and the limit
    expect(drift.gpuMaxNefc).toBe(drift.maxNefc);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('the same chain driven through its tendons by a motor and a position servo (issue 13)', async () => {
    const { model, d } = await xmlScene(TENDON_ACTUATOR_XML);
    for (let e = 0; e < N; e++) TENDON_ACTUATOR_CTRL.forEach((c, u) => { d.ctrl[u * N + e] = c; });
    const drift = await runBoth(model, d);
    expect(Math.abs(d.qpos[0]!)).toBeGreaterThan(0.01); // the actuators moved the chain
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a swinging ball chain meeting its cone limit and the floor (issue 13)', async () => {
    const { model, d } = await xmlScene(BALL_CHAIN_XML);
    const qvel = [0.5, 3, -1, 0, 6, 2, 4, -2, 1];
    for (let e = 0; e < N; e++) for (let k = 0; k < 9; k++) d.qvel[k * N + e] = qvel[k]!;
    const drift = await runBoth(model, d);
    expect(drift.maxNefc).toBeGreaterThan(0); // the cone limit or the floor made rows
    expect(drift.gpuMaxNefc).toBe(drift.maxNefc);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a box tower: box-box contacts on the GPU as on the CPU, the tower standing (issue 13)', async () => {
    const { model, d } = await xmlScene(BOX_TOWER_XML, 24);
    const drift = await runBoth(model, d);
    expect(drift.maxNcon).toBeGreaterThanOrEqual(12); // the floor's 4 and two box-box faces
    expect(drift.gpuMaxNcon).toBe(drift.maxNcon);
    expect(d.qpos[16 * N]).toBeGreaterThan(0.24); // the top box still stands three boxes high
    // Stacked boxes drift more than the other scenes: measured 7.9e-6 (position) and 1.5e-4 (velocity) on
    // lavapipe, within POS_TOL and VEL_TOL but with no room for another GPU's rounding, so the tower gets the
    // same 10x margin on its own measurement. The box-box contacts themselves match the CPU's (constraint-kernels test).
    expect(drift.pos).toBeLessThan(8e-5);
    expect(drift.vel).toBeLessThan(1.5e-3);
  });

  test('joint-level actuatorfrcrange clamps the summed actuator force on hinge and slide (issue 13)', async () => {
    const { model, d } = await xmlScene(ACTFRC_XML);
    fill(d, ACTFRC_CTRL, 'ctrl');
    const drift = await runBoth(model, d);
    // the CPU side is the clamped one (its own test holds it to MuJoCo); unclamped, the GPU drifts by metres
    expect(d.qfrcActuator[0]).toBe(0.5);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  test('a pile of primitives (separate islands, every narrow phase) falling onto a floor and a step', async () => {
    const { model, d } = await xmlScene(PILE);
    const drift = await runBoth(model, d);
    expect(drift.maxNcon).toBeGreaterThan(4);
    expect(drift.gpuMaxNcon).toBe(drift.maxNcon);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });

  // measured on lavapipe (ball, puck, defaults): position 4.2e-8, 2.2e-7, 5.7e-7 and velocity 1.4e-6, 3.3e-6,
  // 2.4e-6, inside the shared POS_TOL and VEL_TOL
  describe('explicit contact pairs (issue 13)', () => {
    const cases = [
      { label: 'a ball falling onto a table top that only a pair lets it touch', xml: PAIR_ONLY_XML, qvel: [] as number[], settled: true },
      // the puck's contacts come and go between checkpoints, so the largest counts seen are not compared
      { label: 'a pair overriding every parameter of a sliding, spinning box, and a puck sliding into it', xml: PAIR_OVERRIDE_XML, qvel: PAIR_OVERRIDE_QVEL, settled: false },
      { label: 'pairs with condim 6 and other parameters from <default><pair> classes', xml: PAIR_DEFAULTS_XML, qvel: PAIR_DEFAULTS_QVEL, settled: true },
    ];
    for (const c of cases) {
      test(c.label, async () => {
        const { model, d } = await xmlScene(c.xml, 24); // room for the box-box face contacts
        for (let e = 0; e < N; e++) c.qvel.forEach((v, k) => { d.qvel[k * N + e] = v; });
        const drift = await runBoth(model, d);
        expect(drift.maxNcon).toBeGreaterThan(0); // the pairs touched
        expect(drift.gpuMaxNcon).toBeGreaterThan(0);
        if (c.settled) {
          expect(drift.gpuMaxNcon).toBe(drift.maxNcon);
          expect(drift.gpuMaxNefc).toBe(drift.maxNefc); // the same condim per contact
        }
        expect(drift.pos).toBeLessThan(POS_TOL);
        expect(drift.vel).toBeLessThan(VEL_TOL);
      });
    }
  });

  describe.skipIf(!hasShared())('Franka', () => {
    test('PD control from home (finger equality row throughout)', async () => {
      const { mj, m } = await loadMujoco(sharedPath(FRANKA));
      const model = setConst(modelFromMujoco(mj, m));
      const d = makeData(model, N, '32');
      fill(d, HOME, 'qpos');
      fill(d, TARGET_CTRL, 'ctrl');
      const drift = await runBoth(model, d);
      expect(drift.maxNefc).toBeGreaterThan(0);
      expect(drift.gpuMaxNefc).toBeGreaterThan(0);
      expect(drift.pos).toBeLessThan(POS_TOL);
      expect(drift.vel).toBeLessThan(VEL_TOL);
    });

    test('from zeros, against the joint-4 limit', async () => {
      const { mj, m } = await loadMujoco(sharedPath(FRANKA));
      const model = setConst(modelFromMujoco(mj, m));
      const d = makeData(model, N, '32');
      const drift = await runBoth(model, d);
      expect(drift.maxNefc).toBeGreaterThan(1); // equality plus the limit
      expect(drift.gpuMaxNefc).toBeGreaterThan(1);
      expect(drift.pos).toBeLessThan(POS_TOL);
      expect(drift.vel).toBeLessThan(VEL_TOL);
    });

    test('64 envs, each with its own targets: actuator ctrl in even envs, the dof position controller in odd ones', async () => {
      const { mj, m } = await loadMujoco(sharedPath(FRANKA));
      const model = setConst(modelFromMujoco(mj, m));
      const d = makeData(model, 64, '32');
      const n = d.nEnvs;
      fill(d, HOME, 'qpos');
      const uniform = lcg(99);
      const rnd = () => uniform() * 2 - 1;
      for (let e = 0; e < n; e++) {
        for (let k = 0; k < model.nu; k++) d.ctrl[k * n + e] = TARGET_CTRL[k]! + (k < 7 ? 0.4 * rnd() : 0.01 * rnd());
        if (e % 2 === 1) {
          for (let i = 0; i < 7; i++) {
            d.dofCtrlMode[i * n + e] = DofCtrlMode.Position;
            d.dofCtrlPos[i * n + e] = HOME[i]! + 0.3 * rnd();
          }
        }
      }
      const drift = await runBoth(model, d);
      expect(drift.pos).toBeLessThan(POS_TOL);
      expect(drift.vel).toBeLessThan(VEL_TOL);
    });
  });

  test.skipIf(!hasShared())('ANYmal standing on its keyframe, held by its position actuators', async () => {
    const { mj, m, d: md } = await loadMujoco(sharedPath(ANYMAL));
    mj.mj_resetDataKeyframe(m, md, 0);
    const key = Float64Array.from(md.qpos as ArrayLike<number>);
    const model = setConst(modelFromMujoco(mj, m));
    const d = makeData(model, N, '32');
    fill(d, key, 'qpos');
    fill(d, key.subarray(7, 7 + model.nu), 'ctrl');
    const drift = await runBoth(model, d);
    expect(drift.maxNcon).toBe(4);
    expect(drift.gpuMaxNcon).toBe(4);
    expect(drift.pos).toBeLessThan(POS_TOL);
    expect(drift.vel).toBeLessThan(VEL_TOL);
  });
});
