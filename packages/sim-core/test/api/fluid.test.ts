/**
 * Fluid forces (issue 28). MuJoCo's inertia-box model: <option viscosity> (Stokes drag of each body's box), <option
 * density> (quadratic drag on its faces) and <option wind>, on a free slab and a hinge + ball arm with a massless
 * body; and the ellipsoid model (fluidshape="ellipsoid", fluidcoef) on five primitive types beside an inertia-box
 * body: geom_fluid as MuJoCo compiles it, and 300 steps following MuJoCo (mujoco-js) through the public API,
 * qfrc_passive included; the inertia-box model under implicitfast and implicit, its velocity derivative
 * (mjd_inertiaBoxFluid) in qDeriv. The ellipsoid model under those integrators (its derivative is not computed)
 * and fluid forces on the GPU backend are refused, each with a clear message.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { refuseCpuOnlyPhysics } from '../../src/backend/gpu.js';
import * as gs from '../../src/index.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { mujocoIntegratorGap, sceneVsMujoco } from '../helpers/scene-vs-mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

const fluidModel = (option: string): string => `<mujoco><option ${option}/>
  <worldbody>
    <body name="slab" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.3 0.1 0.02" contype="0" conaffinity="0"/>
      <geom type="sphere" size="0.05" pos="0.25 0.05 0" contype="0" conaffinity="0"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint type="hinge" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      <body name="paddle" pos="0.4 0 0">
        <joint type="ball"/>
        <geom type="box" size="0.1 0.2 0.01" pos="0 0 -0.2" euler="10 20 0" contype="0" conaffinity="0"/>
        <body name="tag" pos="0 0 -0.3"><site name="tag"/></body>
      </body>
    </body>
  </worldbody>
  <keyframe><key qpos="0 0 1 0.9 0.2 -0.1 0.3 0.4 0.8 0.3 -0.2 0.1" qvel="1 -0.5 2 3 -1 2 -2 4 1 -3"/></keyframe>
</mujoco>`;

const PASSIVE = [['qfrcPassive', 'qfrc_passive']] as const;

describe('the inertia-box model under implicitfast and implicit (its velocity derivative in qDeriv) follows MuJoCo', () => {
  for (const integrator of ['implicitfast', 'implicit']) {
    test(`${integrator}: viscosity and density with wind, 300 steps`, async () => {
      const xml = fluidModel(`integrator="${integrator}" viscosity="0.3" density="900" wind="0 2 -0.5"`);
      const worst = await sceneVsMujoco(xml, 300, PASSIVE);
      console.log(`fluid ${integrator}: worst |difference| ${worst.toExponential(2)}`);
      // measured 1.1e-13 (implicitfast) and 5.7e-14 (implicit), 20 without the derivative; 1e-10 leaves a margin
      expect(worst).toBeLessThanOrEqual(1e-10);
      // MuJoCo's own Euler run ends far from this one: a missing derivative would show
      expect(await mujocoIntegratorGap(xml, 300, 0)).toBeGreaterThan(1e-6);
    }, 60_000);
  }
});

describe('fluid forces follow MuJoCo (CPU f64, 300 steps, Euler)', () => {
  test('viscosity with wind', async () => {
    const worst = await sceneVsMujoco(fluidModel('viscosity="0.3" wind="1 -0.5 0.3"'), 300, PASSIVE);
    console.log(`fluid viscosity: worst |difference| ${worst.toExponential(2)}`);
    // measured 7.8e-14 (qpos, qvel, qfrc_passive); 1e-10 leaves a margin of ~1000, and NaN fails
    expect(worst).toBeLessThanOrEqual(1e-10);
  }, 60_000);

  test('density with wind', async () => {
    const worst = await sceneVsMujoco(fluidModel('density="900" wind="0 2 -0.5"'), 300, PASSIVE);
    console.log(`fluid density: worst |difference| ${worst.toExponential(2)}`);
    // measured 2.6e-13; 1e-10 leaves a margin of ~400
    expect(worst).toBeLessThanOrEqual(1e-10);
  }, 60_000);
});

/** Geoms of every primitive type in the ellipsoid model (one with its own fluidcoef) beside an inertia-box body. */
const ELLIPSOID_MODEL = `<mujoco><option density="1000" viscosity="0.01" wind="0.5 -1 0.2"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="glider" pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.3 0.1 0.02" fluidshape="ellipsoid"/>
      <geom type="capsule" size="0.03 0.1" pos="0.2 0 0" euler="0 90 0" fluidshape="ellipsoid" fluidcoef="0.4 0.3 1.2 2 0.5"/>
      <geom type="sphere" size="0.05" pos="-0.2 0 0"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="cylinder" fromto="0 0 0 0.4 0 0" size="0.03" fluidshape="ellipsoid"/>
      <body name="paddle" pos="0.4 0 0">
        <joint type="ball"/>
        <geom type="box" size="0.1 0.2 0.01" pos="0 0 -0.2" euler="10 20 0" fluidshape="ellipsoid"/>
      </body>
    </body>
    <body name="block" pos="-1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.02"/>
    </body>
  </worldbody>
  <keyframe><key qpos="0 0 1 0.9 0.2 -0.1 0.3 0.4 0.8 0.3 -0.2 0.1 -1 0 1 1 0 0 0" qvel="1 -0.5 2 3 -1 2 -2 4 1 -3 0.5 1 -1 2 1 -1"/></keyframe>
</mujoco>`;

describe('the ellipsoid fluid model follows MuJoCo (CPU f64, 300 steps, Euler)', () => {
  test('geom_fluid as MuJoCo compiles it', async () => {
    const ours = loadMJCF(writeXml(ELLIPSOID_MODEL)).model.geomFluid!;
    const ref = await loadMujocoXml(ELLIPSOID_MODEL);
    try {
      const theirs = Float64Array.from(ref.m.geom_fluid as ArrayLike<number>);
      expect(ours.length).toBe(theirs.length);
      let worst = 0;
      for (let k = 0; k < theirs.length; k++) worst = Math.max(worst, Math.abs(ours[k]! - theirs[k]!) / Math.max(1, Math.abs(theirs[k]!)));
      console.log(`geom_fluid: worst relative difference ${worst.toExponential(2)}`);
      // measured 6.8e-21 (the quadrature's pow may round differently from C's); 1e-12 leaves a wide margin
      expect(worst).toBeLessThanOrEqual(1e-12);
    } finally {
      disposeMujoco(ref);
    }
  });

  test('added mass, lift and drag on five primitive types, beside an inertia-box body, in wind', async () => {
    const worst = await sceneVsMujoco(ELLIPSOID_MODEL, 300, PASSIVE);
    console.log(`fluid ellipsoid: worst |difference| ${worst.toExponential(2)}`);
    // measured 5.0e-14; 1e-10 leaves a margin of ~2000, and NaN fails
    expect(worst).toBeLessThanOrEqual(1e-10);
  }, 60_000);
});

test('the build log line of the options in effect names the fluid options', async () => {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'info' });
  const log = gs.captureLogs();
  try {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: writeXml(fluidModel('viscosity="0.3" wind="1 -0.5 0.3"')) }));
    await scene.build();
    const line = log.lines().find((l) => l.includes('Options in effect:'));
    expect(line).toMatch(/; fluid forces from the model files: density=0, viscosity=0\.3, wind=\[1, -0\.5, 0\.3\]\.$/);
  } finally {
    log.restore();
  }
});

describe('fluid forces: refusals', () => {
  test('the ellipsoid model under implicitfast: at load with file, line and geom, and at build when the scene options choose it', async () => {
    expect(() => loadMJCF(writeXml(ELLIPSOID_MODEL.replace('<option ', '<option integrator="implicitfast" '))))
      .toThrow(/m\.xml:6: <geom>: the ellipsoid fluid model \(fluidshape="ellipsoid"\) under the implicitfast integrator is not supported/);
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { integrator: 'implicit' }, profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: writeXml(ELLIPSOID_MODEL) }));
    await expect(scene.build()).rejects.toThrow(
      'the ellipsoid fluid model (a geom\'s fluidshape="ellipsoid") under the implicit integrator is not supported');
  });

  test('the GPU backend refuses fluid forces at build, naming the options', () => {
    expect(() => refuseCpuOnlyPhysics(loadMJCF(writeXml(fluidModel('density="1.225" viscosity="1.8e-5"'))).model)).toThrow(
      'the GPU backend has no fluid forces: this model sets <option density="1.225" viscosity="0.000018">; it runs on the CPU backend (backend cpu)');
    // wind alone moves nothing (MuJoCo runs no fluid model without density or viscosity)
    expect(() => refuseCpuOnlyPhysics(loadMJCF(writeXml(fluidModel('wind="1 0 0"'))).model)).not.toThrow();
  });
});
