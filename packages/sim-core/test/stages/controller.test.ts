/**
 * Genesis' per-dof controller in the actuation stage (DofCtrlMode): gains taken from MuJoCo's position-like
 * actuators at build, Position/Velocity/Force modes, clamping, and silencing of the dof's MuJoCo actuator.
 */
import { describe, expect, test } from 'vitest';
import { hasShared, sharedPath } from '../../../../test/support/shared.js';
import { DofCtrlMode } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import { actuation } from '../../src/stages/actuation/cpu.js';
import { stepCpu } from '../../src/cpu/step.js';
import { envOf, pairFromFile, pairFromXml } from './oracle.js';

const PD_XML = `
<mujoco>
  <option timestep="0.002" integrator="implicitfast"/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
      <body pos="0.4 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="a" kp="80" kv="4" ctrlrange="-2 2" forcerange="-15 15"/>
    <position joint="b" kp="30" kv="1"/>
  </actuator>
</mujoco>`;

describe('Genesis dof controller', () => {
  test.skipIf(!hasShared())('build-time gains come from the Franka\'s position-like actuators', async () => {
    const p = await pairFromFile(sharedPath('models/franka_emika_panda_nomesh/mjx_scene.xml'));
    const d = makeData(p.model, 2, '64');
    const n = 2;
    expect(envOf(d, d.dofKp, 1)).toEqual([1000, 1000, 750, 750, 300, 300, 300, 350, 0]);
    expect(envOf(d, d.dofKv, 0)).toEqual([20, 20, 4, 4, 2, 2, 2, 10, 0]);
    // actuators 1-4 compile to +-100 (PROVENANCE), 5-7 +-12, the finger +-200; finger 2 has no actuator
    const range = envOf(d, d.dofForceRange, 0);
    expect([range[0], range[1]]).toEqual([-100, 100]);
    expect([range[2 * 5], range[2 * 5 + 1]]).toEqual([-12, 12]);
    expect([range[2 * 7], range[2 * 7 + 1]]).toEqual([-200, 200]);
    expect([range[2 * 8], range[2 * 8 + 1]]).toEqual([-Infinity, Infinity]);
    expect(d.dofCtrlMode.every((v) => v === DofCtrlMode.None)).toBe(true);
    expect(d.dofKp.length).toBe(9 * n);
  });

  test('Position mode with the actuator\'s gains steps exactly like the MuJoCo position actuator', async () => {
    const p = await pairFromXml(PD_XML);
    const d = makeData(p.model, 2, '64');
    const target = [0.8, -0.5];
    // env 0: MuJoCo actuators via ctrl; env 1: Genesis Position mode, same targets
    d.ctrl[0] = target[0]!; d.ctrl[2] = target[1]!;
    for (let i = 0; i < 2; i++) {
      d.dofCtrlMode[i * 2 + 1] = DofCtrlMode.Position;
      d.dofCtrlPos[i * 2 + 1] = target[i]!;
      d.ctrl[i * 2 + 1] = 5; // ignored: the dof's actuator is silenced
    }
    for (let s = 0; s < 400; s++) stepCpu(p.model, d, 0, 2);
    // same force up to rounding (kp*(q* - q) - kv*v vs kp*q* - kp*q - kv*v)
    for (let k = 0; k < 2; k++) expect(d.qpos[k * 2 + 1]).toBeCloseTo(d.qpos[k * 2]!, 12);
    expect(d.qpos[1]).toBeGreaterThan(0.4); // it moved from 0 toward the 0.8 target
    expect(envOf(d, d.qDeriv, 1)).toEqual(envOf(d, d.qDeriv, 0));
    expect(envOf(d, d.actuatorForce, 1)).toEqual([0, 0]);
    // and it is MuJoCo's trajectory
    p.md.ctrl.set([target[0], target[1]]);
    for (let s = 0; s < 400; s++) p.mj.mj_step(p.mm, p.md);
    for (let k = 0; k < 2; k++) expect(d.qpos[k * 2]).toBeCloseTo(p.md.qpos[k], 9);
  });

  test('Velocity and Force modes give kv*(v* - v) and the given force, clamped to the dof force range', async () => {
    const p = await pairFromXml(PD_XML);
    const n = 3;
    const d = makeData(p.model, n, '64');
    // dof 0 has forcerange +-15 from its actuator, dof 1 is unlimited
    for (let e = 0; e < n; e++) { d.qvel[e] = 0.5; d.qvel[n + e] = -0.25; }
    d.dofCtrlMode[0] = DofCtrlMode.Velocity; d.dofCtrlVel[0] = 2;       // 4 * (2 - 0.5) = 6
    d.dofCtrlMode[n] = DofCtrlMode.Velocity; d.dofCtrlVel[n] = 1;       // 1 * (1 + 0.25) = 1.25
    d.dofCtrlMode[1] = DofCtrlMode.Force; d.dofCtrlForce[1] = 40;       // clamped to 15
    d.dofCtrlMode[n + 1] = DofCtrlMode.Force; d.dofCtrlForce[n + 1] = -40; // unlimited
    d.dofCtrlMode[2] = DofCtrlMode.Position; d.dofCtrlPos[2] = 3;       // 80 * 3 - 4 * 0.5 = 238 -> 15
    actuation(p.model, d, 0, n);
    expect(envOf(d, d.qfrcActuator, 0)).toEqual([6, 1.25]);
    expect(envOf(d, d.qfrcActuator, 1)).toEqual([15, -40]);
    expect(envOf(d, d.qfrcActuator, 2)[0]).toBe(15);
    // implicit damping: -damping - kv for velocity-driven dofs, -damping only under Force
    expect(envOf(d, d.qDeriv, 0)).toEqual([-0.1 - 4, -1]);
    expect(envOf(d, d.qDeriv, 1)).toEqual([-0.1, 0]);
  });
});
