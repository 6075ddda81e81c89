/**
 * A scene whose options come from its model file (no rigidOptions) runs with the file's <option> and MuJoCo's
 * own defaults for what it leaves out (issue 28): a model with no <option> at all, and one that sets only the
 * integrator, follow MuJoCo (mujoco-js) for 300 steps through the public API. With Genesis' defaults (dt 0.01,
 * implicitfast, 50 iterations, tol 1e-6) either would be far off after the first step.
 */
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

// A damped double pendulum with a velocity actuator (Euler and implicitfast differ there) and a box sliding and
// spinning on the floor (its contacts make the solver's iterations and tolerance count).
const BODY = `
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 2">
      <joint name="a" type="hinge" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" contype="0" conaffinity="0"/>
      <body pos="0.5 0 0">
        <joint name="b" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body pos="1 1 0.1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
  <actuator><velocity joint="b" kv="3"/></actuator>
  <keyframe><key qpos="0.3 -0.2 1 1 0.11 1 0 0 0" qvel="1 -2 1.5 0.7 0 0 0 3" ctrl="0.5"/></keyframe>`;
const NO_OPTION = `<mujoco>${BODY}</mujoco>`;
const INTEGRATOR_ONLY = `<mujoco><option integrator="implicitfast"/>${BODY}</mujoco>`;

async function followMujoco(xml: string, steps: number): Promise<{ worst: number; log: string[] }> {
  await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'info' });
  const log = gs.captureLogs();
  const ref = await loadMujocoXml(xml);
  try {
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const entity = scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml, 'gsprof-file-options-') }));
    await scene.build();
    ref.mj.mj_resetDataKeyframe(ref.m, ref.d, 0);
    entity.setQpos(Array.from(ref.d.qpos as ArrayLike<number>));
    entity.setDofsVelocity(Array.from(ref.d.qvel as ArrayLike<number>));
    scene.requireSim().hostData!.ctrl[0] = ref.d.ctrl[0] as number;
    const nq = ref.m.nq as number;
    const nv = ref.m.nv as number;
    let worst = 0;
    for (let s = 0; s < steps; s++) {
      scene.step();
      ref.mj.mj_step(ref.m, ref.d);
      const d = scene.requireSim().hostData!;
      for (let k = 0; k < nq; k++) worst = Math.max(worst, Math.abs(d.qpos[k]! - (ref.d.qpos[k] as number)));
      for (let k = 0; k < nv; k++) worst = Math.max(worst, Math.abs(d.qvel[k]! - (ref.d.qvel[k] as number)));
    }
    await scene.destroy();
    return { worst: Number.isNaN(worst) ? Number.POSITIVE_INFINITY : worst, log: log.lines() };
  } finally {
    log.restore();
    disposeMujoco(ref);
  }
}

describe("options from the model file: its <option>, MuJoCo's defaults for the rest", () => {
  test('a file with no <option> runs with MuJoCo 0.002 s, Euler, 100 iterations, tol 1e-8 and follows MuJoCo', async () => {
    const { worst, log } = await followMujoco(NO_OPTION, 300);
    // measured 7.3e-15 (with Genesis' defaults at MuJoCo's dt, 0.18); 1e-10 leaves a margin, and NaN fails
    expect(worst).toBeLessThanOrEqual(1e-10);
    const line = log.find((l) => l.includes('Options in effect:'));
    expect(line).toMatch(/MuJoCo defaults: dt=0\.002, substeps=1, gravity=\[0, 0, -9\.81\], integrator='euler', eulerdamp=true, constraintSolver='newton', iterations=100, tolerance=1e-8, lsIterations=50, lsTolerance=0\.01/);
  }, 60_000);

  test('a file that sets only the integrator gets MuJoCo\'s defaults for the rest, and the log names each source', async () => {
    const { worst, log } = await followMujoco(INTEGRATOR_ONLY, 300);
    // measured 6.0e-15
    expect(worst).toBeLessThanOrEqual(1e-10);
    const line = log.find((l) => l.includes('Options in effect:'));
    expect(line).toMatch(/MuJoCo defaults: dt=0\.002, .*iterations=100, tolerance=1e-8.*; from m\.xml <option>: integrator='implicitfast'\.$/);
  }, 60_000);
});
