/**
 * `<general gaintype="affine">` (issue 28): gain = gainprm[0] + gainprm[1] * length + gainprm[2] * velocity, with an
 * affine bias, on a hinge and a slide, under Euler and implicitfast (whose velocity derivative takes the gain's
 * velocity term times the raw ctrl) follows MuJoCo (mujoco-js) for 300 steps through the public API. An actuator
 * on a free or ball joint is refused with file, line and element; the GPU backend refuses affine gains at build.
 */
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml, startAtKeyframe } from '../helpers/mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

const model = (integrator: string): string => `<mujoco><option integrator="${integrator}"/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.02"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
      <body pos="0.4 0 0">
        <joint name="slide" type="slide" axis="1 0 0" range="-0.2 0.2"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general name="a" joint="hinge" gaintype="affine" gainprm="2 0.5 -0.3" biastype="affine" biasprm="0 -1 -0.2" gear="1.5"/>
    <general name="b" joint="slide" gaintype="affine" gainprm="5 -3 0.8" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
  <keyframe><key qpos="0.4 0.05" qvel="1 -0.5" ctrl="0.7 -2"/></keyframe>
</mujoco>`;

async function worstAgainstMujoco(xml: string, steps: number): Promise<number> {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
  const ref = await loadMujocoXml(xml);
  try {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml, 'gsprof-affine-') }));
    await scene.build();
    const d = scene.requireSim().hostData!;
    startAtKeyframe(ref, d);
    let worst = 0;
    for (let s = 0; s < steps; s++) {
      scene.step();
      ref.mj.mj_step(ref.m, ref.d);
      for (let k = 0; k < 2; k++) {
        worst = Math.max(worst, Math.abs(d.qpos[k]! - (ref.d.qpos[k] as number)), Math.abs(d.qvel[k]! - (ref.d.qvel[k] as number)));
        worst = Math.max(worst, Math.abs(d.actuatorForce[k]! - (ref.d.actuator_force[k] as number)));
      }
    }
    await scene.destroy();
    return Number.isNaN(worst) ? Number.POSITIVE_INFINITY : worst;
  } finally {
    disposeMujoco(ref);
  }
}

describe('affine actuator gains follow MuJoCo (CPU f64, 300 steps)', () => {
  for (const integrator of ['Euler', 'implicitfast']) {
    test(`${integrator}: positions, velocities and actuator forces`, async () => {
      const worst = await worstAgainstMujoco(model(integrator), 300);
      // measured 5.6e-17 (Euler) and 2.8e-17 (implicitfast); 1e-10 leaves a margin, and NaN fails
      expect(worst).toBeLessThanOrEqual(1e-10);
    }, 60_000);
  }

  test('an actuator on a free or ball joint is refused with file, line and element', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const xml = (joint: string): string => `<mujoco><worldbody>
  <body><freejoint name="f"/><geom size="0.1"/></body>
  <body pos="1 0 0"><joint name="b" type="ball"/><geom size="0.1"/></body></worldbody>
<actuator>
  <motor joint="${joint}"/>
</actuator></mujoco>`;
    expect(() => scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml('f')) })))
      .toThrow(/m\.xml:5: <motor>: unsupported transmission on free joint "f" \(actuators drive hinge and slide joints, and tendons\)/);
    expect(() => scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml('b')) })))
      .toThrow(/m\.xml:5: <motor>: unsupported transmission on ball joint "b"/);
  });
});
