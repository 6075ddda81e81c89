/**
 * Velocity derivatives that couple a tendon's dofs (issue 28), as MuJoCo takes them into qDeriv under implicitfast
 * and implicit: a velocity-dependent actuator on a tendon adds moment' * B * moment (B = biasprm[2] + gainprm[2] *
 * ctrl), a damped tendon J' * (-damping) * J; implicitfast factors M - h * qDeriv on M's sparsity. Checked
 * against MuJoCo (mujoco-js) through the public API:
 * - Menagerie's Franka Panda as shipped (panda.xml's options, defaults, tendon, equality, actuators and keyframe;
 *   its meshes replaced by primitives, see fixtures/PROVENANCE.md): the gripper's `<general>` on the tendon
 *   `split` with biasprm "0 -100 -10", the arm driven away from home and the gripper closing;
 * - a model of our own whose tendons couple a dof with its ancestors (fixed and spatial tendons, an affine gain
 *   with a velocity term), and a fixed tendon on the two slides of a 'simple' body, whose off-diagonal term
 *   MuJoCo's reduced M drops; the same tendons damped, under implicitfast and implicit.
 * Each case also checks that MuJoCo's own Euler run of the model parts from its implicit run by far more than
 * the tolerance, so a missing or wrong derivative term would fail it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { refuseTendonVelocityDerivative } from '../../src/backend/gpu.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { hasGpu } from '../gpu/gpu-env.js';
import { mujocoIntegratorGap, sceneVsMujoco } from '../helpers/scene-vs-mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

const PANDA = fileURLToPath(new URL('./fixtures/panda-primitives.xml', import.meta.url));

/** `damping` on the three tendons (0: none). */
const chain = (integrator: string, damping: number): string => `<mujoco><option integrator="${integrator}" timestep="0.005"/>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body pos="0.3 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body pos="0.3 0 0">
          <joint name="c" type="slide" axis="1 0 0" range="-0.1 0.1"/>
          <geom type="sphere" size="0.05"/>
          <site name="tip"/>
        </body>
      </body>
    </body>
    <body pos="1 0 0">
      <joint name="sx" type="slide" axis="1 0 0"/>
      <joint name="sy" type="slide" axis="0 1 0"/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="abc" damping="${damping}"><joint joint="a" coef="1"/><joint joint="b" coef="-0.7"/><joint joint="c" coef="2"/></fixed>
    <fixed name="xy" damping="${damping}"><joint joint="sx" coef="1"/><joint joint="sy" coef="0.5"/></fixed>
    <spatial name="sp" damping="${damping / 2}"><site site="anchor"/><site site="tip"/></spatial>
  </tendon>
  <actuator>
    <general tendon="abc" gaintype="affine" gainprm="3 0 -0.5" biastype="affine" biasprm="0 -2 -4"/>
    <general tendon="xy" biastype="affine" biasprm="0 -1 -30"/>
    <general tendon="sp" biastype="affine" biasprm="0 -5 -8" gear="1.5"/>
  </actuator>
  <keyframe><key qpos="0.3 -0.5 0.05 0.1 -0.2" qvel="1 -2 0.5 0.3 0.4" ctrl="0.5 0 0"/></keyframe>
</mujoco>`;

/** sim-core's actuator forces beside qpos and qvel. */
const FORCES = [['actuatorForce', 'actuator_force']] as const;
/** Panda: the arm driven away from home, the gripper closing (ctrl 60 of 255). */
const PANDA_CTRL = [0.3, 0.4, -0.2, -1.9, 0.1, 1.8, -0.5, 60];

describe('velocity-dependent tendon actuators under implicitfast follow MuJoCo (CPU f64)', () => {
  test('Menagerie Panda (meshes as primitives): arm driven from home, gripper closing, 400 steps', async () => {
    const worst = await sceneVsMujoco({ file: PANDA }, 400, FORCES, PANDA_CTRL);
    // measured 9.1e-13 (the gripper's derivative dropped: 4.4e-2); 1e-10 leaves a margin of 100, and NaN fails.
    expect(worst).toBeLessThanOrEqual(1e-10);
    // MuJoCo's Euler run ends 0.64 from its implicitfast run
    expect(await mujocoIntegratorGap({ file: PANDA }, 400, 0, PANDA_CTRL)).toBeGreaterThan(1e-3);
  }, 60_000);

  test('tendons coupling a dof and its ancestors, an affine gain, a simple body: 300 steps', async () => {
    const xml = chain('implicitfast', 0);
    const worst = await sceneVsMujoco(xml, 300, FORCES);
    // measured 5.3e-15 (without the off-diagonal terms 6.5; with the simple body's kept 7.9e-2); 1e-10 as above
    expect(worst).toBeLessThanOrEqual(1e-10);
    // MuJoCo's Euler run ends 0.54 from its implicitfast run
    expect(await mujocoIntegratorGap(xml, 300, 0)).toBeGreaterThan(1e-3);
  }, 60_000);

  for (const integrator of ['implicitfast', 'implicit']) {
    test(`the same tendons damped (fixed 0.8, spatial 0.4), ${integrator}: 300 steps`, async () => {
      const xml = chain(integrator, 0.8);
      const worst = await sceneVsMujoco(xml, 300, FORCES);
      // measured 3.6e-15 (implicitfast) and 1.3e-14 (implicit); without the tendon damping's derivative 1.27
      expect(worst).toBeLessThanOrEqual(1e-10);
      // MuJoCo's Euler run ends 2.6 from this one
      expect(await mujocoIntegratorGap(xml, 300, 0)).toBeGreaterThan(1e-3);
    }, 60_000);
  }

  test('batched: in 5 envs, the envs started as a lone env end where it does (implicitfast and implicit)', async () => {
    for (const integrator of ['implicitfast', 'implicit']) {
      const file = writeXml(chain(integrator, 0.8));
      const run = async (n: number): Promise<number[][]> => {
        await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
        const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
        scene.addEntity(gs.morphs.MJCF({ file }));
        await scene.build({ nEnvs: n });
        const d = scene.requireSim().hostData!;
        const { nq, nv } = scene.compiledModel;
        // odd envs start twice as fast, so each env's derivative differs from its neighbours'
        for (let e = 0; e < n; e++) for (let k = 0; k < nv; k++) d.qvel[k * n + e] = 0.5 * ((k % 3) - 1) * (1 + (e % 2));
        for (let s = 0; s < 100; s++) scene.step();
        const out = Array.from({ length: n }, (_, e) => Array.from({ length: nq }, (_, k) => d.qpos[k * n + e]!));
        await gs.destroy();
        return out;
      };
      const [alone] = await run(1);
      const batch = await run(5);
      for (const e of [0, 2, 4]) expect(batch[e]).toEqual(alone); // the same operations: bit for bit
      expect(batch[1]).not.toEqual(alone);
    }
  }, 60_000);

  test.skipIf(!hasGpu)('a scene on the GPU backend is refused at build: the Panda as shipped, and under implicit', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const shipped = new gs.Scene({ profilingOptions: { showFPS: false } });
    shipped.addEntity(gs.morphs.MJCF({ file: PANDA }));
    await expect(shipped.build()).rejects.toThrow(/the GPU backend has no velocity derivative of a tendon actuator: actuator 'actuator8' on tendon 'split'/);
    const implicit = new gs.Scene({ profilingOptions: { showFPS: false } });
    implicit.addEntity(gs.morphs.MJCF({ file: writeXml(readFileSync(PANDA, 'utf8').replace('"implicitfast"', '"implicit"')) }));
    await expect(implicit.build()).rejects.toThrow(/the GPU backend has no implicit integrator/);
  }, 180_000);

  test('the GPU backend refuses them at build under implicitfast, naming the actuator or tendon', () => {
    const { model } = loadMJCF(PANDA);
    expect(() => refuseTendonVelocityDerivative(model))
      .toThrow(/the GPU backend has no velocity derivative of a tendon actuator: actuator 'actuator8' .*implicitfast.*backend cpu/);
    const euler = { ...model, opt: { ...model.opt, integrator: 0 } } as typeof model;
    expect(() => refuseTendonVelocityDerivative(euler)).not.toThrow();
    const damped = loadMJCF(writeXml(chain('implicitfast', 0.8))).model;
    expect(() => refuseTendonVelocityDerivative(damped))
      .toThrow(/the GPU backend has no velocity derivative of tendon damping: tendon 'abc' has damping 0\.8 under the implicitfast integrator/);
  });
});
