/**
 * integrator="implicit" (issue 28): MuJoCo's implicit integrator adds the bias force's velocity derivative
 * (mjd_rne_vel: Coriolis and centrifugal terms) to the actuator and damping derivatives, and solves
 * (M - h * qDeriv) qacc = qfrc_smooth + qfrc_constraint by a non-symmetric LU on the dof tree's sparsity.
 * Checked against MuJoCo (mujoco-js) through the public API on a spinning free body carrying a ball, hinge and
 * slide chain (damping, position, velocity and motor actuators) and on Menagerie's Panda (meshes as primitives,
 * see fixtures/PROVENANCE.md) switched to implicit, and Menagerie's Sawyer, which ships with implicit (its
 * visual meshes removed, fixtures/sawyer/PROVENANCE.md). Each case also checks that MuJoCo's implicitfast run of the
 * model ends far from its implicit run, so a missing bias derivative would fail it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { refuseImplicitIntegrator } from '../../src/backend/gpu.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { mujocoIntegratorGap, sceneVsMujoco } from '../helpers/scene-vs-mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

const SPINNER = `<mujoco><option integrator="implicit" timestep="0.005"/>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.15 0.05" density="800"/>
      <body pos="0.2 0 0">
        <joint name="ball" type="ball" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.04"/>
        <body pos="0.3 0.1 0">
          <joint name="h" type="hinge" axis="0 0.6 0.8" damping="0.2"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
          <body pos="0 0 -0.3">
            <joint name="s" type="slide" axis="1 0 0" damping="0.5"/>
            <geom type="sphere" size="0.05"/>
          </body>
        </body>
      </body>
    </body>
    <body pos="1 0 1">
      <joint name="h2" type="hinge" axis="1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 0.3 0" size="0.03"/>
    </body>
  </worldbody>
  <actuator>
    <position joint="h" kp="20" kv="2"/>
    <velocity joint="s" kv="3"/>
    <motor joint="h2" gear="2"/>
  </actuator>
  <keyframe>
    <key qpos="0 0 1 1 0 0 0 0.9 0.1 0.3 0.2 0.5 0.05 0.3" qvel="0.3 -0.2 0.1 1 2 -1 3 -2 1 4 -0.5 2" ctrl="0.3 0.2 0.5"/>
  </keyframe>
</mujoco>`;

const PANDA_FIXTURE = fileURLToPath(new URL('./fixtures/panda-primitives.xml', import.meta.url));
/** The Panda fixture under the implicit integrator (Menagerie's panda.xml set it before it moved to implicitfast). */
const PANDA_IMPLICIT = readFileSync(PANDA_FIXTURE, 'utf8').replace('integrator="implicitfast"', 'integrator="implicit"');
const PANDA_CTRL = [0.3, 0.4, -0.2, -1.9, 0.1, 1.8, -0.5, 60];
const FORCES = [['actuatorForce', 'actuator_force']] as const;
/** Menagerie's sawyer.xml with its visual geoms and mesh assets removed (fixtures/sawyer/PROVENANCE.md). */
const SAWYER = fileURLToPath(new URL('./fixtures/sawyer/sawyer-novisual.xml', import.meta.url));
/** From home, every joint sent away from its keyframe angle. */
const SAWYER_CTRL = [0.4, -0.8, 0.3, 1.7, -0.4, 0.9, 2.8];

describe('the implicit integrator follows MuJoCo (CPU f64)', () => {
  test('a spinning free body with a ball, hinge and slide chain: 300 steps', async () => {
    const worst = await sceneVsMujoco(SPINNER, 300, FORCES);
    // measured 1.2e-14 (without the bias derivative 0.34, without its part above the diagonal 0.67); 1e-10 leaves
    // a margin of 1e4 for summation order, and NaN fails
    expect(worst).toBeLessThanOrEqual(1e-10);
    // MuJoCo's implicitfast run ends 0.34 from its implicit run
    expect(await mujocoIntegratorGap(SPINNER, 300, 3)).toBeGreaterThan(1e-2);
  }, 60_000);

  test('Menagerie Panda (meshes as primitives) under implicit: 400 steps', async () => {
    const worst = await sceneVsMujoco(PANDA_IMPLICIT, 400, FORCES, PANDA_CTRL);
    // measured 1.8e-12 over qpos, qvel and actuator forces (without the bias derivative 5.3); 1e-10 as above
    expect(worst).toBeLessThanOrEqual(1e-10);
    // MuJoCo's implicitfast run ends 1.2e-4 from its implicit run
    expect(await mujocoIntegratorGap(PANDA_IMPLICIT, 400, 3, PANDA_CTRL)).toBeGreaterThan(1e-6);
  }, 60_000);

  test('Menagerie Sawyer as shipped but for its visual meshes, under its implicit integrator: 500 steps from home', async () => {
    const worst = await sceneVsMujoco({ file: SAWYER }, 500, FORCES, SAWYER_CTRL);
    // measured 2.3e-13 over qpos, qvel and actuator forces (joint friction loss rows active); 1e-10 as above
    expect(worst).toBeLessThanOrEqual(1e-10);
    // MuJoCo's implicitfast run ends 5.4e-6 from its implicit run
    expect(await mujocoIntegratorGap({ file: SAWYER }, 500, 3, SAWYER_CTRL)).toBeGreaterThan(1e-7);
  }, 60_000);

  test('the ellipsoid fluid model, whose derivative sim-core does not compute, is refused with file and line', () => {
    const head = '<mujoco><option integrator="implicit"';
    const body = '<worldbody><body><joint name="j" axis="0 1 0"/><geom size="0.1"/><site name="s"/></body></worldbody>';
    // a velocity-dependent site actuator is computed (test/api/site-transmission.test.ts)
    expect(loadMJCF(writeXml(`${head}/>${body}<actuator><velocity site="s" kv="1"/></actuator></mujoco>`)).model.nu).toBe(1);
    // the inertia-box fluid model's derivative is computed (test/api/fluid.test.ts), the ellipsoid model's is not
    expect(loadMJCF(writeXml(`${head} density="1.2"/>${body}</mujoco>`)).model.opt.density).toBe(1.2);
    expect(() => loadMJCF(writeXml(`${head} density="1.2"/><worldbody><body><freejoint/><geom size="0.1" fluidshape="ellipsoid"/></body></worldbody></mujoco>`)))
      .toThrow(/m\.xml:1: <geom>: the ellipsoid fluid model \(fluidshape="ellipsoid"\) under the implicit integrator is not supported/);
  });

  test('a Genesis scene can choose it (rigidOptions.integrator), and the ellipsoid fluid model is refused at build', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const body = '<worldbody><body><joint name="j" axis="0 1 0"/><geom size="0.1"/></body></worldbody>';
    const scene = new gs.Scene({ rigidOptions: { integrator: 'implicit' }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: writeXml(`<mujoco>${body}</mujoco>`) }));
    await scene.build();
    expect(scene.compiledModel.opt.integrator).toBe(2); // mjINT_IMPLICIT
    scene.step();
    await scene.destroy();
    const fluid = new gs.Scene({ rigidOptions: { integrator: 'implicit' }, profilingOptions: { showFPS: false } });
    const ellipsoid = '<worldbody><body><joint name="j" axis="0 1 0"/><geom size="0.1" fluidshape="ellipsoid"/></body></worldbody>';
    fluid.addEntity(gs.morphs.MJCF({ file: writeXml(`<mujoco><option density="1.2"/>${ellipsoid}</mujoco>`) }));
    await expect(fluid.build()).rejects.toThrow(/the ellipsoid fluid model .* under the implicit integrator is not supported/);
  });

  test('the GPU backend refuses it at build', () => {
    const { model } = loadMJCF(writeXml(SPINNER));
    expect(() => refuseImplicitIntegrator(model)).toThrow(/the GPU backend has no implicit integrator/);
  });
});
