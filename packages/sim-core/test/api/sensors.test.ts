/**
 * Sensors through the public API (issue 28): a model of our own with every computed sensor type (an IMU on a
 * floating base that falls onto the floor, joint, actuator, frame sensors with and without a reference frame,
 * force and torque at a site, a connect equality and contacts as external forces, cutoffs) gives MuJoCo's
 * sensordata (mujoco-js) after every one of 300 steps, in MuJoCo's order; entity.getSensor reads one by name;
 * unsupported sensor types are refused with file and line; the GPU backend refuses to read sensors.
 */
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { hasGpu } from '../gpu/gpu-env.js';
import { disposeMujoco, loadMujocoXml, startAtKeyframe } from '../helpers/mujoco.js';
import { writeXml } from '../helpers/xml-file.js';

afterEach(async () => { await gs.destroy(); });

export const SENSOR_XML = `<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <site name="origin" pos="0.1 0.2 0.05" euler="0 0 30"/>
    <body name="base" pos="0 0 0.4" euler="8 -5 20">
      <freejoint/>
      <geom type="box" size="0.15 0.1 0.05" mass="2"/>
      <site name="imu" pos="0.05 -0.02 0.03" euler="10 20 30"/>
      <body name="thigh" pos="0.1 0 -0.05">
        <joint name="hip" type="hinge" axis="0 1 0" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.15" size="0.03" mass="0.3"/>
        <site name="knee_ft" pos="0 0.01 -0.15" euler="0 30 0"/>
        <body name="shin" pos="0 0 -0.15">
          <joint name="knee" type="hinge" axis="0 1 0"/>
          <geom name="foot" type="sphere" size="0.04" pos="0 0 -0.1" mass="0.2"/>
          <site name="sole" pos="0 0 -0.14"/>
        </body>
      </body>
      <body name="arm" pos="-0.1 0 0.05">
        <joint name="swing" type="slide" axis="1 0 0" range="-0.05 0.05"/>
        <geom type="sphere" size="0.03" mass="0.1"/>
      </body>
    </body>
    <body name="pend" pos="1 0 1">
      <joint name="pj" type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
      <site name="tip" pos="0.3 0 0"/>
    </body>
  </worldbody>
  <equality><connect body1="pend" body2="base" anchor="0.3 0 0" solref="0.05 1"/></equality>
  <actuator><motor name="hipm" joint="hip" gear="2"/><position name="kneep" joint="knee" kp="5"/></actuator>
  <sensor>
    <accelerometer name="acc" site="imu"/>
    <gyro name="gyro" site="imu" noise="0.01"/>
    <velocimeter site="imu"/>
    <framequat name="quat" objtype="site" objname="imu"/>
    <framequat objtype="body" objname="shin" reftype="xbody" refname="base"/>
    <framepos name="sole_pos" objtype="site" objname="sole"/>
    <framepos objtype="geom" objname="foot" reftype="site" refname="origin"/>
    <framelinvel objtype="body" objname="thigh"/>
    <framelinvel objtype="site" objname="sole" reftype="xbody" refname="base"/>
    <frameangvel objtype="xbody" objname="shin" reftype="site" refname="imu"/>
    <jointpos name="hip_pos" joint="hip"/>
    <jointvel joint="knee" cutoff="0.5"/>
    <actuatorfrc actuator="hipm"/>
    <actuatorfrc actuator="kneep"/>
    <force name="knee_force" site="knee_ft"/>
    <torque site="knee_ft" cutoff="0.2"/>
    <force site="tip"/>
    <subtreecom body="base"/>
    <clock/>
  </sensor>
  <keyframe><key qpos="0 0 0.4 0.99 0.05 -0.04 0.1 0.3 -0.6 0.02 1 0 0 0" qvel="0.2 -0.1 0 1 -0.5 0.3 2 -1 0.1 0 0 0" ctrl="0.3 -0.4"/></keyframe>
</mujoco>`;

describe('sensors follow MuJoCo (CPU f64)', () => {
  test('every computed type gives MuJoCo\'s sensordata after each of 300 steps, in its order', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const ref = await loadMujocoXml(SENSOR_XML);
    try {
      const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
      const entity = scene.addEntity(gs.morphs.MJCF({ file: writeXml(SENSOR_XML, 'gsprof-sensors-') }));
      await scene.build();
      const d = scene.requireSim().hostData!;
      startAtKeyframe(ref, d);
      const nsd = ref.m.nsensordata as number;
      expect(scene.compiledModel.nsensordata).toBe(nsd);
      let worst = 0;
      let contactSteps = 0;
      let worstAt = '';
      for (let s = 0; s < 300; s++) {
        scene.step();
        ref.mj.mj_step(ref.m, ref.d);
        if ((ref.d.ncon as number) > 0) contactSteps++;
        const got = (await scene.getSensorData()).toArray() as number[];
        expect(got).toHaveLength(nsd);
        for (let k = 0; k < nsd; k++) {
          const want = ref.d.sensordata[k] as number;
          const err = Math.abs(got[k]! - want) / Math.max(1, Math.abs(want));
          if (!(err <= worst)) { worst = Number.isNaN(err) ? Number.POSITIVE_INFINITY : err; worstAt = `step ${s} value ${k}`; }
        }
      }
      console.log(`sensors: worst relative error ${worst.toExponential(2)} at ${worstAt}; ${contactSteps} steps with contacts`);
      expect(contactSteps).toBeGreaterThan(50); // the foot lands: force, accelerometer see contact forces
      // measured 9.0e-13 (the knee's force sensor while the foot is in contact); 1e-10 leaves a margin, NaN fails
      expect(worst).toBeLessThanOrEqual(1e-10);
      // one sensor by name, and the entity's list in MuJoCo's order
      const acc = (await entity.getSensor('acc')).toArray() as number[];
      expect(acc).toEqual(((await scene.getSensorData()).toArray() as number[]).slice(0, 3));
      expect(entity.sensors.slice(0, 3)).toEqual([
        { name: 'acc', type: 'accelerometer', dim: 3, adr: 0, noise: 0, cutoff: 0 },
        { name: 'gyro', type: 'gyro', dim: 3, adr: 3, noise: 0.01, cutoff: 0 },
        { name: '', type: 'velocimeter', dim: 3, adr: 6, noise: 0, cutoff: 0 },
      ]);
      await expect(entity.getSensor('nope')).rejects.toThrow("entity 0 has no sensor named 'nope' (its named sensors: 'acc', 'gyro', 'quat', 'sole_pos', 'hip_pos', 'knee_force')");
      await scene.destroy();
    } finally {
      disposeMujoco(ref);
    }
  }, 60_000);

  test('two entities: each reads its own sensors (objects renumbered in the merged model)', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const file = writeXml(SENSOR_XML, 'gsprof-sensors-two-');
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    const a = scene.addEntity(gs.morphs.MJCF({ file }));
    const b = scene.addEntity(gs.morphs.MJCF({ file, pos: [3, 0, 0] }));
    await scene.build({ nEnvs: 2 });
    for (let s = 0; s < 100; s++) scene.step();
    expect(scene.compiledModel.nsensordata).toBe(2 * a.sensors.reduce((n, x) => n + x.dim, 0));
    expect(b.sensors[0]!.adr).toBe(a.sensors.reduce((n, x) => n + x.dim, 0));
    // the same robot 3 m further along x (its world site and floor too): the same readings, positions 3 m apart
    for (const name of ['acc', 'gyro', 'quat', 'hip_pos', 'knee_force']) {
      const ra = (await a.getSensor(name)).toArray() as number[][];
      const rb = (await b.getSensor(name)).toArray() as number[][];
      expect(rb.flat().every(Number.isFinite)).toBe(true);
      rb.flat().forEach((x, k) => { expect(Math.abs(x - ra.flat()[k]!)).toBeLessThan(1e-9); });
    }
    const pa = (await a.getSensor('sole_pos', 1)).toArray() as number[];
    const pb = (await b.getSensor('sole_pos', 1)).toArray() as number[];
    expect(pb[0]! - pa[0]!).toBeCloseTo(3, 9);
    expect(pb[1]!).toBeCloseTo(pa[1]!, 9);
    await scene.destroy();
  }, 60_000);

  test('a sensor type sim-core does not compute is refused with file, line and element', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const xml = `<mujoco><worldbody><body><freejoint/><geom size="0.1"/><site name="s"/></body></worldbody>
<sensor>
  <rangefinder site="s"/>
</sensor></mujoco>`;
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    expect(() => scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml, 'gsprof-sensor-refused-') })))
      .toThrow(/m\.xml:3: <rangefinder>: unsupported sensor type \(computed: jointpos, jointvel, actuatorfrc, framepos, framequat, framelinvel, frameangvel, accelerometer, gyro, velocimeter, force, torque, subtreecom, clock\)/);
    const ball = `<mujoco><worldbody><body><joint name="b" type="ball"/><geom size="0.1"/></body></worldbody>
<sensor><jointpos joint="b"/></sensor></mujoco>`;
    expect(() => scene.addEntity(gs.morphs.MJCF({ file: writeXml(ball, 'gsprof-sensor-ball-') })))
      .toThrow(/m\.xml:2: <jointpos>: joint "b" must be a hinge or slide joint/);
    // MuJoCo's sensor="disable" leaves sensordata at zero: refused with sensors, harmless without
    const disabled = (sensors: string): string => `<mujoco><option><flag sensor="disable"/></option>
<worldbody><body><joint name="h"/><geom size="0.1"/></body></worldbody>${sensors}</mujoco>`;
    expect(() => scene.addEntity(gs.morphs.MJCF({ file: writeXml(disabled('<sensor><jointpos joint="h"/></sensor>'), 'gsprof-sensor-off-') })))
      .toThrow(/m\.xml:1: <flag>: unsupported flag sensor="disable" in a model with sensors/);
    expect(scene.addEntity(gs.morphs.MJCF({ file: writeXml(disabled(''), 'gsprof-sensor-off-') })).sensors).toEqual([]);
  });
});

describe('sensors on the GPU backend', () => {
  test.skipIf(!hasGpu)('a model with sensors builds; reading them is refused, not answered with zeros', async () => {
    await gs.init({ backend: 'gpu', loggingLevel: 'warning' });
    const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
    // a small model: the point is the refusal, not the GPU's physics
    const xml = `<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1" pos="0.2 0 0" contype="0" conaffinity="0"/>
      <site name="s"/></body></worldbody><sensor><accelerometer name="acc" site="s"/></sensor></mujoco>`;
    const entity = scene.addEntity(gs.morphs.MJCF({ file: writeXml(xml, 'gsprof-sensors-gpu-') }));
    await scene.build({ nEnvs: 2 });
    const message = "sensors are computed on the CPU backend only: gs.init({ backend: 'cpu' }) to read them (the GPU backend has no sensor stage)";
    await expect(scene.getSensorData()).rejects.toThrow(message);
    await expect(entity.getSensor('acc')).rejects.toThrow(message);
    await scene.destroy();
  }, 180_000);
});
