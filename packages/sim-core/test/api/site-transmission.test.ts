/**
 * Site transmissions (issue 28): `site=` (a wrench at the site in its frame, gear[0:3] a force and gear[3:6] a
 * torque; length 0) on a free body, and `site=` with `refsite=` (length and moment from the site's pose relative
 * to the refsite, both sites on moving bodies with a common ancestor dof, and one on the world) with
 * velocity-dependent biases follow MuJoCo (mujoco-js) for 300 steps through the public API, under Euler and under
 * implicitfast (their moment' * B * moment in its velocity derivative); the GPU backend refuses them at build
 * naming the actuator.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { refuseCpuOnlyPhysics } from '../../src/backend/gpu.js';
import * as gs from '../../src/index.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { sceneVsMujoco } from '../helpers/scene-vs-mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

/** A free body driven by four rotor-like site wrenches, and an arm driven through sites relative to refsites. */
const siteModel = (integrator: string): string => `<mujoco><option gravity="0 0 -2" integrator="${integrator}"/>
  <worldbody>
    <site name="anchor" pos="0.3 -0.5 1.2" euler="20 0 40"/>
    <body name="drone" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.04" contype="0" conaffinity="0"/>
      <geom type="sphere" size="0.05" pos="0.2 0.2 0" contype="0" conaffinity="0"/>
      <site name="r1" pos="0.2 0.2 0.03" euler="10 0 0"/>
      <site name="r2" pos="-0.2 0.2 0.03"/>
      <site name="r3" pos="-0.2 -0.2 0.03" euler="0 -15 30"/>
    </body>
    <body name="link1" pos="1 0 1">
      <joint name="j1" type="hinge" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      <site name="base" pos="0.1 0 0" euler="0 30 0"/>
      <body name="link2" pos="0.4 0 0">
        <joint name="j2" type="ball" damping="0.02"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.025" contype="0" conaffinity="0"/>
        <site name="tip" pos="0 0.02 -0.3" euler="0 0 60"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="thrust1" site="r1" gear="0 0 1 0 0 -0.05"/>
    <motor name="thrust2" site="r2" gear="0.2 0 1 0.1 0 0.05" ctrlrange="0 4"/>
    <general name="thrust3" site="r3" gear="0 0.3 1 0 0.02 0" biastype="affine" biasprm="0.5 0 -0.4"/>
    <general name="reach" site="tip" refsite="base" gear="1 0.5 -0.3 0.2 -0.4 0.6" biastype="affine" biasprm="0.1 -2 -0.5"/>
    <motor name="twist" site="tip" refsite="anchor" gear="0 0 0 0.3 0.1 -0.2"/>
    <position name="pull" site="tip" refsite="anchor" gear="0.4 -0.2 0.7 0 0 0" kp="3" kv="0.3"/>
  </actuator>
  <keyframe><key qpos="0 0 1 0.9 0.1 -0.2 0.3 0.3 0.8 0.1 -0.3 0.2" qvel="0.1 -0.2 0.3 1 -0.5 0.7 0.8 0.3 -0.6 0.4" ctrl="2 1.5 1.8 0.7 -0.5 0.3"/></keyframe>
</mujoco>`;

describe('site transmissions follow MuJoCo (CPU f64, 300 steps)', () => {
  // implicitfast takes the velocity-dependent ones' moment' * B * moment into its velocity derivative
  for (const integrator of ['Euler', 'implicitfast', 'implicit']) {
    test(`${integrator}: site wrenches on a free body, sites relative to refsites on an arm`, async () => {
      const worst = await sceneVsMujoco(siteModel(integrator), 300, [
        ['actuatorForce', 'actuator_force'], ['actuatorLength', 'actuator_length'], ['actuatorVelocity', 'actuator_velocity'],
      ]);
      console.log(`site transmissions, ${integrator}: worst |difference| ${worst.toExponential(2)}`);
      // measured 5.7e-13 (qpos, qvel, actuator length, velocity and force); 1e-10 leaves a margin of ~200, and NaN fails
      expect(worst).toBeLessThanOrEqual(1e-10);
    }, 60_000);
  }
});

describe('site transmissions: refusals', () => {
  const one = (actuator: string): string => `<mujoco><worldbody>
  <site name="w"/>
  <body><freejoint/><geom size="0.1"/><site name="s"/></body></worldbody>
<actuator>
  ${actuator}
</actuator></mujoco>`;

  test('an unknown site or refsite, a refsite without a site, a body transmission: file, line, element', () => {
    expect(() => loadMJCF(writeXml(one('<motor site="nope"/>')))).toThrow(/m\.xml:5: <motor>: unknown site "nope"/);
    expect(() => loadMJCF(writeXml(one('<motor site="s" refsite="nope"/>')))).toThrow(/m\.xml:5: <motor>: unknown refsite "nope"/);
    expect(() => loadMJCF(writeXml(one('<motor joint="x" refsite="w"/>')))).toThrow(/m\.xml:5: <motor>: refsite needs a site transmission/);
    expect(() => loadMJCF(writeXml(one('<motor body="x"/>')))).toThrow(/m\.xml:5: <motor>: unsupported attribute 'body'/);
  });

  test('the GPU backend refuses a site transmission at build, naming the actuator and its sites', () => {
    const model = loadMJCF(writeXml(siteModel('Euler'))).model;
    expect(() => refuseCpuOnlyPhysics(model)).toThrow(
      "the GPU backend has no site transmission: actuator 'thrust1' drives site 'r1'; it runs on the CPU backend (backend cpu)");
    const ref = loadMJCF(writeXml(one('<motor name="m" site="s" refsite="w"/>'))).model;
    expect(() => refuseCpuOnlyPhysics(ref)).toThrow("actuator 'm' drives site 's' with refsite 'w'");
  });
});
