/**
 * Link and force getters (issue 13), checked against MuJoCo: after the same steps, link poses and velocities
 * equal what MuJoCo's mj_forward gives for the current state (velocities moved to the link origin or com as
 * mj_objectVelocity does), the origin velocity matches how far MuJoCo moves that point in the next step, and
 * the dof forces equal MuJoCo's qfrc of the last step.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import * as gs from '../../src/index.js';
import { disposeMujoco, loadMujocoXml } from '../helpers/mujoco.js';

const XML = `<mujoco><option timestep="0.002" integrator="implicitfast" gravity="0 0 -9.81"/><worldbody>
  <body name="flyer" pos="0 0 1" euler="0.3 0.2 0.1"><freejoint/><geom type="box" size="0.1 0.05 0.03" mass="1"/>
    <body name="arm" pos="0.1 0 0"><joint name="hinge" axis="0 1 0" damping="0.2" stiffness="1"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.3"/>
      <body name="slider" pos="0.2 0 0"><joint name="slide" type="slide" axis="1 0 0"/><geom type="sphere" size="0.03" mass="0.2"/></body>
    </body>
  </body>
</worldbody><actuator><motor joint="hinge" gear="2"/></actuator></mujoco>`;
const QVEL = [0.3, -0.2, 0.5, 1.1, -0.7, 0.4, 2, -0.5];
const STEPS = 50;

afterEach(async () => { await gs.destroy(); });

describe('link and force getters against MuJoCo', () => {
  test('positions, orientations, velocities (origin and com), angular velocities and dof forces after 50 steps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-links-'));
    writeFileSync(join(dir, 'm.xml'), XML);
    await gs.init({ backend: 'cpu', precision: '64', loggingLevel: 'warning' });
    const scene = new gs.Scene({ rigidOptions: { dt: 0.002 }, profilingOptions: { showFPS: false } });
    const e = scene.addEntity(gs.morphs.MJCF({ file: join(dir, 'm.xml') }));
    await scene.build();
    e.setDofsVelocity(QVEL);
    e.controlDofsForce([0.7], { dofsIdx: [6] }); // through the dof controller: qfrc_actuator = 0.7 at the hinge
    for (let s = 0; s < STEPS; s++) scene.step();
    expect(scene.t).toBe(STEPS);
    expect(scene.curT).toBeCloseTo(STEPS * 0.002, 15);
    const pos = (await e.getLinksPos()).toArray() as number[][];
    const quat = (await e.getLinksQuat()).toArray() as number[][];
    const vel = (await e.getLinksVel()).toArray() as number[][];
    const velCom = (await e.getLinksVel({ ref: 'linkCom' })).toArray() as number[][];
    const ang = (await e.getLinksAngVel()).toArray() as number[][];
    const control = (await e.getDofsControlForce()).toArray() as number[];
    const force = (await e.getDofsForce()).toArray() as number[];
    expect((await e.getLinksPos([1, 2])).shape).toEqual([2, 3]);

    const ref = await loadMujocoXml(XML);
    try {
      const { mj, m, d } = ref;
      for (let k = 0; k < QVEL.length; k++) d.qvel[k] = QVEL[k]!;
      d.ctrl[0] = 0.35; // gear 2: the same 0.7 at the hinge
      for (let s = 0; s < STEPS - 1; s++) mj.mj_step(m, d);
      mj.mj_forward(m, d); // derived quantities only: the state is untouched
      const before = Array.from(d.xpos as ArrayLike<number>);
      mj.mj_step(m, d);
      // the forces of the last step, before mj_forward recomputes them for the current state
      const qfrcAct = Array.from(d.qfrc_actuator as ArrayLike<number>);
      const qfrcPas = Array.from(d.qfrc_passive as ArrayLike<number>);
      mj.mj_forward(m, d);
      const xpos = Array.from(d.xpos as ArrayLike<number>), xquat = Array.from(d.xquat as ArrayLike<number>);
      const xipos = Array.from(d.xipos as ArrayLike<number>), cvel = Array.from(d.cvel as ArrayLike<number>);
      const com = Array.from(d.subtree_com as ArrayLike<number>);
      // mj_objectVelocity's transform of MuJoCo's own cvel to a point (mujoco-js cannot return Jacobians)
      const pointVel = (b: number, p: number[]): number[] => {
        const w = cvel.slice(6 * b, 6 * b + 3), v = cvel.slice(6 * b + 3, 6 * b + 6);
        const r = [0, 1, 2].map((k) => p[k]! - com[k]!); // one tree: its root's subtree com is body 1's
        return [v[0]! + w[1]! * r[2]! - w[2]! * r[1]!, v[1]! + w[2]! * r[0]! - w[0]! * r[2]!, v[2]! + w[0]! * r[1]! - w[1]! * r[0]!];
      };
      // f64 on both sides through the same kinematics: measured below 1e-12; bounds 1e-9 (fail on NaN)
      for (let b = 1; b <= 3; b++) {
        for (let k = 0; k < 3; k++) expect(Math.abs(pos[b - 1]![k]! - xpos[3 * b + k]!)).toBeLessThan(1e-9);
        for (let k = 0; k < 4; k++) expect(Math.abs(quat[b - 1]![k]! - xquat[4 * b + k]!)).toBeLessThan(1e-9);
        const lin = pointVel(b, xpos.slice(3 * b, 3 * b + 3)), linCom = pointVel(b, xipos.slice(3 * b, 3 * b + 3));
        for (let k = 0; k < 3; k++) {
          expect(Math.abs(vel[b - 1]![k]! - lin[k]!)).toBeLessThan(1e-9);
          expect(Math.abs(velCom[b - 1]![k]! - linCom[k]!)).toBeLessThan(1e-9);
          expect(Math.abs(ang[b - 1]![k]! - cvel[6 * b + k]!)).toBeLessThan(1e-9);
        }
      }
      // and the meaning, independently: the link origin's velocity is how fast MuJoCo moved that point over the
      // last step (semi-implicit Euler moves positions by the new velocity: measured 7e-14 of the speed for the
      // free body's origin, 0.01% and 0.3% for the turning links, whose paths curve; 1% allowed)
      for (let b = 1; b <= 3; b++) {
        const moved = [0, 1, 2].map((k) => (xpos[3 * b + k]! - before[3 * b + k]!) / 0.002);
        const speed = Math.hypot(...vel[b - 1]!);
        expect(Math.hypot(...moved.map((x, k) => x - vel[b - 1]![k]!))).toBeLessThan(0.01 * speed);
      }
      // the arm really turns and the flyer really moves, so the velocity checks compare motion, not zeros
      expect(Math.hypot(...vel[2]!)).toBeGreaterThan(0.1);
      for (let k = 0; k < QVEL.length; k++) {
        expect(Math.abs(control[k]! - qfrcAct[k]!)).toBeLessThan(1e-9);
        expect(Math.abs(force[k]! - (qfrcAct[k]! + qfrcPas[k]!))).toBeLessThan(1e-9);
      }
      expect(control[6]).toBeCloseTo(0.7, 12);
    } finally {
      disposeMujoco(ref);
    }
  });
});
