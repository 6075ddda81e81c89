/**
 * Genesis' dof controllers on MJCF actuators (issue 13). A `<velocity>` actuator gives its dof kv, so
 * controlDofsVelocity(v) drives the joint exactly as MuJoCo does with ctrl = v (force kv * (v - qdot)); before,
 * kv came only from position-like actuators and the call did nothing. A position or velocity target on a dof
 * with no gain says so once instead of doing nothing in silence.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';

const VELOCITY_XML = `<mujoco><option timestep="0.002" integrator="implicitfast"/><worldbody>
  <body><joint name="spin" axis="0 1 0" damping="0.05"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>
  <body pos="0 1 0"><joint name="free_hinge" axis="0 0 1"/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
</worldbody><actuator><velocity joint="spin" kv="3" gear="1.5"/></actuator></mujoco>`;
// implicitfast is the scene default (Genesis'), so the file names it for MuJoCo too
const TARGET = 1.2; // rad/s at the joint
const STEPS = 300;

function writeModel(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-dofctl-'));
  writeFileSync(join(dir, 'm.xml'), xml);
  return join(dir, 'm.xml');
}

afterEach(async () => { await gs.destroy(); });

describe('dof controllers on MJCF actuators', () => {
  test('controlDofsVelocity on a <velocity> actuator follows MuJoCo with ctrl = target / gear, to 1e-9 over 300 steps', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
    const e = scene.addEntity(gs.morphs.MJCF({ file: writeModel(VELOCITY_XML) }));
    await scene.build();
    // kv in joint space is the actuator's kv times gear squared, as Genesis maps position actuators
    expect((await e.getDofsKv()).toArray()).toEqual([3 * 1.5 * 1.5, 0]);
    expect((await e.getDofsKp()).toArray()).toEqual([0, 0]);
    e.controlDofsVelocity([TARGET], { dofsIdx: [0] });
    for (let s = 0; s < STEPS; s++) scene.step();
    const ours = (await e.getDofsVelocity()).toArray() as number[];
    const oursQ = (await e.getDofsPosition()).toArray() as number[];

    const ref = await loadMujocoXml(VELOCITY_XML);
    try {
      // MuJoCo's velocity actuator: force = kv * (ctrl - gear * qdot), joint torque gear * force; so the joint
      // torque is kv * gear^2 * (ctrl / gear - qdot)
      ref.d.ctrl[0] = TARGET * 1.5;
      for (let s = 0; s < STEPS; s++) ref.mj.mj_step(ref.m, ref.d);
      const qvel = Array.from(ref.d.qvel as ArrayLike<number>);
      const qpos = Array.from(ref.d.qpos as ArrayLike<number>);
      // the joint got near its target (it moved, so the comparison below is not of two resting joints)
      expect(Math.abs(qvel[0]! - TARGET)).toBeLessThan(0.2);
      // both are f64 through the same operations: measured 0 here; 1e-9 is the f64 bound
      for (let k = 0; k < 2; k++) {
        expect(Math.abs(ours[k]! - qvel[k]!)).toBeLessThanOrEqual(1e-9);
        expect(Math.abs(oursQ[k]! - qpos[k]!)).toBeLessThanOrEqual(1e-9);
      }
    } finally {
      disposeMujoco(ref);
    }
  });

  test('a position or velocity target on a dof without gains warns once, naming the joint and the fix', async () => {
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const logs = gs.captureLogs();
    try {
      const scene = new gs.Scene({ profilingOptions: { showFPS: false } });
      const e = scene.addEntity(gs.morphs.MJCF({ file: writeModel(VELOCITY_XML) }));
      await scene.build();
      e.controlDofsVelocity([0.5, 0.5]);
      e.controlDofsVelocity([0.5, 0.5]);
      e.controlDofsPosition([0.1], { dofsIdx: [0] });
      const lines = logs.lines();
      expect(lines.filter((l) => l.includes('controlDofsVelocity'))).toEqual([
        expect.stringContaining('controlDofsVelocity on entity 0: dofs [1] (free_hinge) have kv = 0'),
      ]);
      expect(lines.filter((l) => l.includes('controlDofsPosition'))).toEqual([
        expect.stringContaining('controlDofsPosition on entity 0: dofs [0] (spin) have kp = 0'),
      ]);
      // Genesis' tutorial call on the bundled Franka: the second finger has no actuator but follows the first
      // through a joint equality, so it is not idle
      const franka = new gs.Scene({ profilingOptions: { showFPS: false } });
      const panda = franka.addEntity(gs.morphs.MJCF({ file: 'xml/franka_emika_panda/panda.xml' }));
      await franka.build();
      const beforeFranka = logs.lines().length;
      panda.controlDofsPosition([0, 0, 0, -1, 0, 1, 0, 0.02, 0.02]);
      expect(logs.lines().slice(beforeFranka)).toEqual([]);
      // on a fresh scene, gains set first by the user mean no warning
      const scene2 = new gs.Scene({ profilingOptions: { showFPS: false } });
      const e2 = scene2.addEntity(gs.morphs.MJCF({ file: writeModel(VELOCITY_XML) }));
      await scene2.build();
      const before = logs.lines().length;
      e2.setDofsKp([50, 50]);
      e2.setDofsKv([5, 5]);
      e2.controlDofsPosition([0.1, 0.2]);
      e2.controlDofsVelocity([0.1, 0.2]);
      expect(logs.lines().slice(before)).toEqual([]);
      // and a gain set back to 0 in every env makes the dof idle again
      e2.setDofsKp([0, 50]);
      e2.controlDofsPosition([0.1, 0.2]);
      expect(logs.lines().slice(before)).toEqual([expect.stringContaining('dofs [0] (spin) have kp = 0')]);
    } finally {
      logs.restore();
    }
  });
});
