/**
 * The WGSL constraint stages (collision, make_constraint, solve) against the CPU stages on the same random
 * states: the CPU runs mj_forward (f32 Data), the GPU gets only each stage's inputs from it (poses, cdof,
 * subtree com, M, smooth forces, warm start) and must reproduce contacts, constraint rows and the solved qacc.
 */
import { describe, expect, test } from 'vitest';
import { forwardCpu } from '../../src/cpu/forward.js';
import type { Data } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import { collisionKernel } from '../../src/stages/collision/wgsl.js';
import { makeConstraintKernel } from '../../src/stages/make_constraint/wgsl.js';
import { solveKernel } from '../../src/stages/solve/wgsl.js';
import { GPU_KERNELS } from '../../src/gpu/kernels/index.js';
import { dataFields, packLayout, packModel } from '../../src/gpu/layout.js';
import { kernelSource, prelude, preludeScalars } from '../../src/gpu/prelude.js';
import { GpuSim } from '../../src/gpu/runtime.js';
import type { Model } from '../../src/model/model.js';
import { lcg } from '../../../../test/support/random.js';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { BOX_TOWER_XML, CONNECT_XML, TENDON_XML, WELD_XML } from '../parity/models.js';
import { PAIR_OVERRIDE_XML } from '../parity/pair-models.js';
import { setConst } from '../../src/physics/setconst.js';
import { loadMujoco, loadMujocoXml, modelFromMujoco } from '../helpers/mujoco.js';
import { gpuOrSkip, hasGpu } from './gpu-env.js';

const N = 6;
const CAP = { maxContacts: 24, maxEfc: 96 };
const CONSTRAINT_KERNELS = [collisionKernel, makeConstraintKernel, solveKernel];
/** What the three stages read that earlier stages made (the GPU gets these from the CPU run). */
const INPUTS = ['qpos', 'qvel', 'qaccWarmstart', 'xpos', 'xquat', 'xmat', 'geomXpos', 'geomXmat', 'subtreeCom', 'cdof', 'qM', 'qfrcSmooth', 'qaccSmooth'];

const PRIMITIVES = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="box" pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1"/></body>
  <body name="ball" pos="1 0 0.3"><freejoint/><geom type="sphere" size="0.07" mass="0.5"/></body>
  <body name="pill" pos="1.1 0 0.3"><freejoint/><geom type="capsule" size="0.04 0.1" mass="0.7"/></body>
  <body name="can" pos="-1 0 0.3"><freejoint/><geom type="cylinder" size="0.06 0.08" mass="0.8" friction="0.8 0.01 0.001"/></body>
  <body name="stepbody" pos="0 1 0.05"><geom name="step" type="box" size="0.2 0.2 0.05"/></body>
  <body name="rod" pos="0 1 0.14"><freejoint/><geom type="capsule" size="0.04 0.15" mass="0.6"/></body>
</worldbody><contact>
  <!-- pairs with no collision code in sim-core (box-box, box-cylinder, capsule-cylinder); they never touch here -->
  <exclude body1="stepbody" body2="box"/><exclude body1="stepbody" body2="can"/><exclude body1="box" body2="can"/>
  <exclude body1="pill" body2="can"/><exclude body1="rod" body2="can"/>
</contact></mujoco>`;

let uniform = lcg(12345);
/** Uniform in [-1, 1). */
const rnd = (): number => uniform() * 2 - 1;

function randomQuat(spread: number): number[] {
  const v = [1, spread * rnd(), spread * rnd(), spread * rnd()];
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Host arrays of the GPU's element type, from a Data field. */
function hostCopy(sim: GpuSim, name: string, src: ArrayLike<number>): Float32Array | Int32Array {
  const kind = sim.layout.fields.find((f) => f.name === name)!.kind;
  return kind === 'f32' ? Float32Array.from(src) : Int32Array.from(src);
}

/** Largest |gpu - cpu| over env e's first `count` elements, relative to max(1e-6, max |cpu|). */
function relErr(got: ArrayLike<number>, want: ArrayLike<number>, count: number, e: number, n: number): number {
  let scale = 1e-6, err = 0;
  for (let k = 0; k < count; k++) scale = Math.max(scale, Math.abs(want[k * n + e]!));
  for (let k = 0; k < count; k++) err = Math.max(err, Math.abs(got[k * n + e]! - want[k * n + e]!));
  return err / scale;
}

interface Scene {
  label: string; model: Model; fill: (d: Data, e: number) => void; expectContacts: boolean; expectLimits: boolean;
  performanceMode?: boolean;
}

/** Compares the stages; returns contact and row totals and the geom type pairs ('t1-t2') that touched. */
async function compare(scene: Scene): Promise<{ ncon: number; nefc: number; pairs: Set<string> }> {
  const gpu = (await gpuOrSkip())!;
  const { model } = scene;
  const d = makeData(model, N, '32', CAP);
  for (let e = 0; e < N; e++) scene.fill(d, e);
  forwardCpu(model, d, 0, N);

  const sim = new GpuSim(gpu, model, N, { performanceMode: scene.performanceMode ?? false, capacities: CAP });
  try {
    await sim.compile(CONSTRAINT_KERNELS);
    const rec = d as unknown as Record<string, ArrayLike<number>>;
    for (const name of INPUTS) sim.writeField(name, hostCopy(sim, name, rec[name]!));
    sim.step();
    const read = async (name: string) => sim.readField(name);
    const [ncon, nefc, errFlags] = [await read('ncon'), await read('nefc'), await read('errFlags')];
    let totalCon = 0, totalEfc = 0, limits = 0;
    for (let e = 0; e < N; e++) {
      expect(errFlags[e], `env ${e}: no overflow`).toBe(0);
      expect(ncon[e], `env ${e}: contact count`).toBe(d.ncon[e]);
      expect(nefc[e], `env ${e}: row count`).toBe(d.nefc[e]);
      totalCon += d.ncon[e]!;
      totalEfc += d.nefc[e]!;
    }
    const contactGeom = await read('contactGeom');
    const contactDim = await read('contactDim');
    const efcType = await read('efcType');
    const efcId = await read('efcId');
    for (let e = 0; e < N; e++) {
      for (let k = 0; k < 2 * d.ncon[e]!; k++) expect(contactGeom[k * N + e], `env ${e} contactGeom[${k}]`).toBe(d.contactGeom[k * N + e]);
      for (let c = 0; c < d.ncon[e]!; c++) expect(contactDim[c * N + e], `env ${e} contactDim[${c}]`).toBe(d.contactDim[c * N + e]);
      for (let r = 0; r < d.nefc[e]!; r++) {
        expect(efcType[r * N + e], `env ${e} efcType[${r}]`).toBe(d.efcType[r * N + e]);
        expect(efcId[r * N + e], `env ${e} efcId[${r}]`).toBe(d.efcId[r * N + e]);
        if (d.efcType[r * N + e] === 3) limits++;
      }
    }
    const per = (name: string, elems: number, what: 'con' | 'efc') => ({ name, elems, what });
    const checks = [
      per('contactDist', 1, 'con'), per('contactPos', 3, 'con'), per('contactFrame', 9, 'con'),
      per('contactIncludemargin', 1, 'con'), per('contactFriction', 5, 'con'), per('contactSolref', 2, 'con'),
      per('contactSolimp', 5, 'con'), per('efcJ', model.nv, 'efc'), per('efcPos', 1, 'efc'), per('efcMargin', 1, 'efc'),
      per('efcR', 1, 'efc'), per('efcD', 1, 'efc'), per('efcAref', 1, 'efc'),
    ];
    for (const c of checks) {
      const got = await read(c.name);
      for (let e = 0; e < N; e++) {
        const rows = c.what === 'con' ? d.ncon[e]! : d.nefc[e]!;
        const err = relErr(got, rec[c.name]!, rows * c.elems, e, N);
        expect(err, `${scene.label}: ${c.name} env ${e}`).toBeLessThan(2e-4);
      }
    }
    // the solve: f32 Newton/CG against the CPU's f64 arithmetic on the same f32 inputs
    const qacc = await read('qacc');
    const qfrcConstraint = await read('qfrcConstraint');
    const iterations = await read('timerIterations');
    const contactsTimer = await read('timerContacts');
    const activeTimer = await read('timerActive');
    const efcState = await read('efcState');
    const efcForce = await read('efcForce');
    // islands (kinematic trees joined by rows) each iterate on their own; their counts add up
    const trees = Array.from(model.dofParentid).filter((p) => p < 0).length;
    for (let e = 0; e < N; e++) {
      expect(relErr(qacc, d.qacc, model.nv, e, N), `${scene.label}: qacc env ${e}`).toBeLessThan(2e-3);
      expect(relErr(qfrcConstraint, d.qfrcConstraint, model.nv, e, N), `${scene.label}: qfrcConstraint env ${e}`).toBeLessThan(5e-3);
      expect(relErr(efcForce, d.efcForce, d.nefc[e]!, e, N), `${scene.label}: efcForce env ${e}`).toBeLessThan(5e-3);
      expect(contactsTimer[e]).toBe(d.ncon[e]);
      let active = 0;
      for (let r = 0; r < d.nefc[e]!; r++) if (efcState[r * N + e] !== 0) active++;
      expect(activeTimer[e], `${scene.label}: active rows env ${e}`).toBe(active);
      expect(iterations[e]).toBeLessThanOrEqual(model.opt.iterations * trees);
    }
    expect(totalEfc).toBeGreaterThan(0);
    expect(Array.from(iterations).reduce((m, x) => Math.max(m, x), -Infinity), 'the solver iterated somewhere').toBeGreaterThan(0);
    if (scene.expectContacts) expect(totalCon).toBeGreaterThan(0);
    if (scene.expectLimits) expect(limits).toBeGreaterThan(0);
    const pairs = new Set<string>();
    for (let e = 0; e < N; e++) {
      for (let c = 0; c < d.ncon[e]!; c++) {
        pairs.add(`${model.geomType[d.contactGeom[2 * c * N + e]!]}-${model.geomType[d.contactGeom[(2 * c + 1) * N + e]!]}`);
      }
    }
    return { ncon: totalCon, nefc: totalEfc, pairs };
  } finally {
    sim.destroy();
  }
}

describe.skipIf(!hasGpu)('WGSL constraint stages against the CPU stages', { timeout: 600_000 }, () => {
  test('box, sphere, capsule and cylinder on a plane, a sphere touching a capsule, a capsule on a box', async () => {
    const { mj, m } = await loadMujocoXml(PRIMITIVES);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      // each free body: x, y, z, quat; heights put them across the floor surface
      const poses = [
        [0, 0, 0.05 + 0.04 * rnd()], [1, 0, 0.07 + 0.02 * rnd()], [1.08 + 0.03 * rnd(), 0.05 * rnd(), 0.09 + 0.03 * rnd()],
        [-1, 0, 0.06 + 0.04 * rnd()],
        // the rod on the static box, sometimes over its edge
        [0.2 * rnd(), 1 + 0.1 * rnd(), 0.16 + 0.04 * rnd()],
      ];
      poses.forEach((p, b) => {
        const q = [...p, ...randomQuat(b === 2 || b === 4 ? 1 : 0.4)];
        for (let k = 0; k < 7; k++) d.qpos[(7 * b + k) * n + e] = q[k]!;
      });
      for (let k = 0; k < model.nv; k++) { d.qvel[k * n + e] = 0.5 * rnd(); d.qaccWarmstart[k * n + e] = 2 * rnd(); }
    };
    const { ncon, pairs } = await compare({ label: 'primitives', model, fill, expectContacts: true, expectLimits: false });
    expect(ncon).toBeGreaterThan(4 * N); // most bodies touch the floor in most envs
    // geom types: 0 plane, 2 sphere, 3 capsule, 5 cylinder, 6 box
    for (const pair of ['0-2', '0-3', '0-5', '0-6', '2-3', '3-6']) expect([...pairs], `a ${pair} contact`).toContain(pair);
  });

  test('box on box: face, edge and corner contacts, as the CPU makes them (issue 13)', async () => {
    const { mj, m } = await loadMujocoXml(BOX_TOWER_XML);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      // the lower box on the floor; the one above resting on it (even envs) or tipped onto an edge or corner
      const poses = [
        [0, 0, 0.049], [0.03 * rnd(), 0.03 * rnd(), e % 2 === 0 ? 0.149 : 0.16], [0.02 * rnd(), 0.02 * rnd(), 0.25],
      ];
      poses.forEach((p, b) => {
        const q = [...p, ...randomQuat(b === 1 && e % 2 === 1 ? 0.6 : 0.05)];
        for (let k = 0; k < 7; k++) d.qpos[(7 * b + k) * n + e] = q[k]!;
      });
      for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = 0.2 * rnd();
    };
    const { ncon, pairs } = await compare({ label: 'box tower', model, fill, expectContacts: true, expectLimits: false });
    expect([...pairs]).toContain('6-6');
    expect(ncon).toBeGreaterThan(6 * N);
  });

  test('explicit contact pairs: their own parameters, no filters, the dynamic twin skipped, merged by signature (issue 13)', async () => {
    const { mj, m } = await loadMujocoXml(PAIR_OVERRIDE_XML);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      // the box within the pair's margin of the floor (some envs in its gap), the puck against the box in most envs
      const poses = [[0.02 * rnd(), 0.02 * rnd(), 0.1 + 0.008 * rnd()], [0.135 + 0.01 * rnd(), 0.03 * rnd(), 0.0395]];
      poses.forEach((p, b) => {
        const q = [...p, ...randomQuat(0.05)];
        for (let k = 0; k < 7; k++) d.qpos[(7 * b + k) * n + e] = q[k]!;
      });
      for (let k = 0; k < model.nv; k++) { d.qvel[k * n + e] = 0.5 * rnd(); d.qaccWarmstart[k * n + e] = rnd(); }
    };
    const { pairs } = await compare({ label: 'pairs', model, fill, expectContacts: true, expectLimits: false });
    // box-floor through its pair, puck-floor dynamically, box-puck through the other pair
    for (const pair of ['0-6', '6-6']) expect([...pairs], `a ${pair} contact`).toContain(pair);
  });

  test('connect equalities: a closed four-bar linkage and a bob hung from the world (issue 13)', async () => {
    const { mj, m } = await loadMujocoXml(CONNECT_XML);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      for (let k = 0; k < model.nq; k++) d.qpos[k * n + e] = model.qpos0[k]! + (k < 3 ? 0.05 * rnd() : 0);
      for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = rnd();
    };
    const { nefc } = await compare({ label: 'connect', model, fill, expectContacts: false, expectLimits: false });
    expect(nefc).toBeGreaterThanOrEqual(6 * N);
  });

  test('weld equalities: a tool welded to a moving arm, a box pulled to a pose (issue 13)', async () => {
    const { mj, m } = await loadMujocoXml(WELD_XML);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      for (let k = 0; k < model.nq; k++) d.qpos[k * n + e] = model.qpos0[k]! + (k < 2 ? 0.1 * rnd() : 0);
      for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = rnd();
    };
    const { nefc } = await compare({ label: 'weld', model, fill, expectContacts: false, expectLimits: false });
    expect(nefc).toBeGreaterThanOrEqual(12 * N);
  });

  test('fixed tendons: friction rows and a limit row, with the spring-damper in the smooth forces (issue 13)', async () => {
    const { mj, m } = await loadMujocoXml(TENDON_XML);
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      // the coupling h1 - 0.5 h2 past its 0.3 limit in half the envs
      d.qpos[e] = e % 2 === 0 ? 0.45 : 0.1 * rnd();
      d.qpos[n + e] = 0.1 * rnd();
      d.qpos[2 * n + e] = 0.1 * rnd();
      for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = rnd();
    };
    const { nefc } = await compare({ label: 'tendon', model, fill, expectContacts: false, expectLimits: false });
    expect(nefc).toBeGreaterThanOrEqual(2 * N + N / 2);
  });

  test('CG on the same primitives', async () => {
    const { mj, m } = await loadMujocoXml(PRIMITIVES.replace('<option timestep="0.002"/>', '<option timestep="0.002" solver="CG"/>'));
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      const poses = [[0, 0, 0.05], [1, 0, 0.065], [1.1, 0, 0.2], [-1, 0, 0.075], [0.1, 1, 0.2]];
      poses.forEach((p, b) => {
        const q = [...p, ...randomQuat(0.3)];
        for (let k = 0; k < 7; k++) d.qpos[(7 * b + k) * n + e] = q[k]!;
      });
      for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = 0.3 * rnd();
    };
    await compare({ label: 'primitives (CG)', model, fill, expectContacts: true, expectLimits: false });
  });

  test.skipIf(!hasShared())('Franka at its joint limits, with the finger equality', async () => {
    const { mj, m } = await loadMujoco(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const model = setConst(modelFromMujoco(mj, m));
    const fill = (d: Data, e: number) => {
      const n = d.nEnvs;
      for (let j = 0; j < model.njnt; j++) {
        const a = model.jntQposadr[j]!;
        const lo = model.jntRange[2 * j]!, hi = model.jntRange[2 * j + 1]!;
        // half the joints just past a limit, the rest inside the range
        const v = rnd();
        d.qpos[a * n + e] = v > 0 ? (v > 0.5 ? hi + 0.02 * v : lo - 0.02 * v) : lo + (hi - lo) * (0.5 + 0.4 * rnd());
      }
      for (let k = 0; k < model.nv; k++) { d.qvel[k * n + e] = rnd(); d.qaccWarmstart[k * n + e] = rnd(); }
      for (let k = 0; k < model.nu; k++) d.ctrl[k * n + e] = rnd();
    };
    await compare({ label: 'Franka', model, fill, expectContacts: false, expectLimits: true });
  });

  for (const performanceMode of [false, true]) {
    test.skipIf(!hasShared())(`ANYmal standing on its four feet, performanceMode=${performanceMode}`, async () => {
      const { mj, m, d: md } = await loadMujoco(sharedPath('models/anybotics_anymal_c_nomesh/scene_mjx.xml'));
      mj.mj_resetDataKeyframe(m, md, 0);
      const key = Float64Array.from(md.qpos as ArrayLike<number>);
      const model = setConst(modelFromMujoco(mj, m));
      uniform = lcg(424242); // both modes see the same states
      // The file's single Newton iteration leaves a stiff problem (impratio 100) unconverged, and from there f32
      // and the CPU's f64 arithmetic land a few % apart (the Hessian's conditioning); a few iterations
      // converge both. The parity test runs the file's settings.
      model.opt.iterations = 5;
      const fill = (d: Data, e: number) => {
        const n = d.nEnvs;
        for (let k = 0; k < model.nq; k++) d.qpos[k * n + e] = key[k]!;
        d.qpos[2 * n + e] = key[2]! - 0.01 + 0.01 * rnd();
        const q = randomQuat(0.02);
        for (let k = 0; k < 4; k++) d.qpos[(3 + k) * n + e] = q[k]!;
        for (let k = 7; k < model.nq; k++) d.qpos[k * n + e] = key[k]! + 0.05 * rnd();
        for (let k = 0; k < model.nv; k++) d.qvel[k * n + e] = 0.2 * rnd();
        for (let k = 0; k < model.nu; k++) d.ctrl[k * n + e] = key[7 + k]!;
      };
      const { ncon } = await compare({ label: 'ANYmal', model, fill, expectContacts: true, expectLimits: false, performanceMode });
      expect(ncon).toBeGreaterThanOrEqual(2 * N);
    });
  }

  test('the WGSL of every kernel of a step validates in every prelude mode (generic, baked but loop bounds, all baked)', async () => {
    const gpu = (await gpuOrSkip())!;
    const { mj, m } = await loadMujocoXml(PRIMITIVES);
    const model = setConst(modelFromMujoco(mj, m));
    const layout = packLayout(dataFields(model, CAP));
    const scalars = preludeScalars(model, N, layout, packModel(model), CAP);
    for (const [performanceMode, bake] of [[false, false], [true, false], [true, true]] as const) {
      for (const k of GPU_KERNELS) {
        // validation only (no pipeline): Tint checks the source without the driver compiling it
        const module = gpu.device.createShaderModule({ code: kernelSource(prelude(scalars, performanceMode, bake), k.helpers, k.body) });
        const errors = (await module.getCompilationInfo()).messages.filter((msg) => msg.type === 'error');
        expect(errors.map((msg) => `${k.name} (performanceMode=${performanceMode}, baked bounds=${bake}) line ${msg.lineNum}: ${msg.message}`)).toEqual([]);
      }
    }
  });

  test('beyond maxContacts and maxEfc: errFlags bit 2, overflowing pairs and pyramids dropped whole', async () => {
    const gpu = (await gpuOrSkip())!;
    const { mj, m } = await loadMujocoXml(PRIMITIVES);
    const model = setConst(modelFromMujoco(mj, m));
    // room for the box's four corner contacts, not for the sphere-capsule contact after them; rows for one
    // condim-3 contact (4) but not two
    const cap = { maxContacts: 4, maxEfc: 6 };
    const d = makeData(model, N, '32', cap);
    const n = d.nEnvs;
    for (let e = 0; e < N; e++) {
      // the box flat on the floor, 1 mm deep; the ball touching the upright capsule high above
      const q = [0, 0, 0.049, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1.1, 0, 1, 1, 0, 0, 0, -1, 0, 1, 1, 0, 0, 0];
      q.forEach((v, k) => { d.qpos[k * n + e] = v; });
    }
    forwardCpu(model, d, 0, N);
    const sim = new GpuSim(gpu, model, N, { performanceMode: false, capacities: cap });
    try {
      await sim.compile(CONSTRAINT_KERNELS);
      const rec = d as unknown as Record<string, ArrayLike<number>>;
      for (const name of INPUTS) sim.writeField(name, hostCopy(sim, name, rec[name]!));
      sim.step();
      const ncon = await sim.readField('ncon');
      const nefc = await sim.readField('nefc');
      const flags = await sim.readField('errFlags');
      const geom = await sim.readField('contactGeom');
      for (let e = 0; e < N; e++) {
        expect(d.ncon[e]).toBe(4);
        expect(d.nefc[e]).toBe(4);
        expect(d.errFlags[e]! & 4).toBe(4);
        expect(ncon[e]).toBe(4);
        expect(nefc[e]).toBe(4);
        expect(flags[e]! & 4).toBe(4);
        for (let c = 0; c < 4; c++) expect([geom[2 * c * N + e], geom[(2 * c + 1) * N + e]]).toEqual([0, 1]); // floor, box
      }
    } finally {
      sim.destroy();
    }
  });
});
