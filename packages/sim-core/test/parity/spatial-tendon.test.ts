/**
 * Spatial tendons against MuJoCo (issue 13): the loader and setConst give MuJoCo's wrap and tendon fields
 * (invweight0 from the sites' Jacobians at qpos0, a spring length of -1 -1 as the length at qpos_spring), and
 * the f64 CPU pipeline follows MuJoCo with a tendon motor pulling a two-link arm, through the flexor's limit
 * and friction loss, a spring-damper tendon and a tendon through a pulley, and with tendons wrapping a cylinder
 * and spheres (MuJoCo's mju_wrap, side sites included). The GPU backend's are held to the f32 CPU in
 * test/gpu/spatial-tendon.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { stepCpu } from '../../src/cpu/step.js';
import { makeData } from '../../src/data/make-data.js';
import { loadMJCF, mergeModels } from '../../src/loaders/index.js';
import { WrapType } from '../../src/model/model.js';
import { setConst } from '../../src/physics/setconst.js';
import { SpatialTendons } from '../../src/physics/tendon.js';
import { writeXml } from '../helpers/xml-file.js';
import { disposeMujoco, loadMujoco, loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from '../loaders/compare.js';
import { MIXED_TENDON_XML, SPATIAL_ARM_XML, WRAP_ARM_XML } from './spatial-models.js';
import { run, twin } from './trajectory.js';

const write = (xml: string): string => writeXml(xml, 'gsprof-spatial-');

describe('spatial tendons against MuJoCo', () => {
  it('the loader and setConst give the wrap and tendon fields MuJoCo compiles', async () => {
    const file = write(SPATIAL_ARM_XML);
    const ours = setConst(loadMJCF(file).model);
    const loaded = await loadMujoco(file);
    try {
      expect(diffModels(ours, setConst(mujocoModel(loaded.mj, loaded.m)))).toEqual([]);
      // sites and a pulley (MuJoCo's mjWRAP_SITE 3, mjWRAP_PULLEY 2 with objid -1 and its divisor)
      expect(Array.from(ours.wrapType)).toEqual(Array.from(loaded.m.wrap_type as ArrayLike<number>));
      expect(Array.from(ours.wrapObjid)).toEqual(Array.from(loaded.m.wrap_objid as ArrayLike<number>));
      expect(Array.from(ours.wrapPrm)).toEqual(Array.from(loaded.m.wrap_prm as ArrayLike<number>));
      for (let t = 0; t < 3; t++) {
        // the same Jacobians and solve in f64: measured 0 to 1e-16; 1e-12 fails on any formula difference
        expect(Math.abs(ours.tendonInvweight0[t]! - (loaded.m.tendon_invweight0[t] as number)), `invweight0[${t}]`).toBeLessThan(1e-12);
        for (let k = 0; k < 2; k++) {
          const ref = loaded.m.tendon_lengthspring[2 * t + k] as number;
          expect(Math.abs(ours.tendonLengthspring[2 * t + k]! - ref), `lengthspring[${t}]`).toBeLessThan(1e-14);
        }
      }
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('a tendon motor pulling a two-link arm through a limit, a spring-damper and a pulley follows MuJoCo (f64, 600 steps)', async () => {
    const loaded = await loadMujocoXml(SPATIAL_ARM_XML);
    try {
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      const tendons = new SpatialTendons(p.model);
      const seen = new Set<number>();
      let lengthErr = 0, forceErr = 0, moved = 0;
      const worst = run(p, 600, (s) => {
        // the motor pulls, then pushes the flexor against its upper limit
        const c = s < 250 ? -3 : 4;
        loaded.d.ctrl[0] = c;
        p.d.ctrl[0] = c;
        for (let r = 0; r < p.d.nefc[0]!; r++) seen.add(p.d.efcType[r]!);
        for (let t = 0; t < 3; t++) {
          // ten_length of the step's position stage (both sides hold the pre-integration kinematics)
          tendons.compute(p.d, t, 0);
          lengthErr = Math.max(lengthErr, Math.abs(tendons.length - (loaded.d.ten_length[t] as number)));
        }
        forceErr = Math.max(forceErr, Math.abs(p.d.actuatorForce[0]! - (loaded.d.actuator_force[0] as number)));
        forceErr = Math.max(forceErr, Math.abs(p.d.actuatorLength[0]! - (loaded.d.actuator_length[0] as number)));
        forceErr = Math.max(forceErr, Math.abs(p.d.actuatorVelocity[0]! - (loaded.d.actuator_velocity[0] as number)));
        moved = Math.max(moved, Math.abs(p.d.qpos[0]!));
      });
      // tendon friction (2) and the tendon limit (4) made rows; the arm swung
      expect([...seen].sort()).toEqual(expect.arrayContaining([2, 4]));
      expect(moved).toBeGreaterThan(1);
      // f64 through the same operations: measured 6.5e-14 (state), 6.7e-16 (ten_length) and 3.9e-15 (actuator
      // length, velocity, force) over 600 steps; bounds 1500x and 250x-1500x that (the is 1e-9), where a
      // wrong divisor or a sign in J is off by 1e-2 within a few steps; each fails on NaN
      expect(worst).toBeLessThanOrEqual(1e-10);
      expect(lengthErr).toBeLessThanOrEqual(1e-12);
      expect(forceErr).toBeLessThanOrEqual(1e-12);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('a fixed tendon between spatial ones keeps MuJoCo\'s order, and actuators on both kinds drive the arm as MuJoCo\'s do', async () => {
    const file = write(MIXED_TENDON_XML);
    const loaded = await loadMujoco(file);
    try {
      expect(diffModels(setConst(loadMJCF(file).model), setConst(mujocoModel(loaded.mj, loaded.m)))).toEqual([]);
      expect(loaded.m.ntendon).toBe(4);
      [-2, 0.7, 0.3].forEach((c, u) => { loaded.d.ctrl[u] = c; });
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      const seen = new Set<string>();
      let forceErr = 0;
      const worst = run(p, 500, () => {
        for (let r = 0; r < p.d.nefc[0]!; r++) seen.add(`${p.d.efcType[r]}:${p.d.efcId[r]}`);
        for (let u = 0; u < 3; u++) forceErr = Math.max(forceErr, Math.abs(p.d.actuatorForce[u]! - (loaded.d.actuator_force[u] as number)));
      });
      // friction rows of the fixed tendon (id 1) and a spatial one (id 0), and the fixed tendon's limit
      expect([...seen]).toEqual(expect.arrayContaining(['2:0', '2:1']));
      expect(seen.has('4:1')).toBe(true);
      // measured 4.3e-15 (state) and 1.1e-14 (actuator forces); 1e-10 and 1e-12 (90x) as above, failing on NaN
      expect(worst).toBeLessThanOrEqual(1e-10);
      expect(forceErr).toBeLessThanOrEqual(1e-12);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('each env of a batch follows its own tendons: the middle env matches MuJoCo beside envs driven differently', async () => {
    const loaded = await loadMujocoXml(SPATIAL_ARM_XML);
    try {
      loaded.d.ctrl[0] = -3;
      const p = twin(loaded.mj, loaded.m, loaded.d, 3);
      const { d, model } = p;
      // envs 0 and 2 push the flexor and start swinging: their tendons must not leak into env 1
      for (const e of [0, 2]) { d.ctrl[e] = 4; d.qvel[e] = e === 0 ? 2 : -2; }
      let worst = 0;
      for (let s = 0; s < 300; s++) {
        loaded.mj.mj_step(loaded.m, loaded.d);
        stepCpu(model, d, 0, 3);
        for (let k = 0; k < model.nq; k++) worst = Math.max(worst, Math.abs(d.qpos[k * 3 + 1]! - (loaded.d.qpos[k] as number)));
        for (let k = 0; k < model.nv; k++) worst = Math.max(worst, Math.abs(d.qvel[k * 3 + 1]! - (loaded.d.qvel[k] as number)));
      }
      expect(Math.abs(d.qpos[0]! - d.qpos[1]!)).toBeGreaterThan(0.05);
      // measured 7.3e-14; 1e-10 (1400x) as above, and fails on NaN
      expect(worst).toBeLessThanOrEqual(1e-10);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('tendons wrapping a cylinder (side site), a sphere (no side site) and a sphere from inside follow MuJoCo (f64, 600 steps)', async () => {
    const file = write(WRAP_ARM_XML);
    const loaded = await loadMujoco(file);
    try {
      // the loader compiles the wraps as MuJoCo does (mjWRAP_CYLINDER 5 / SPHERE 4, the side site in wrap_prm)
      expect(diffModels(setConst(loadMJCF(file).model), setConst(mujocoModel(loaded.mj, loaded.m)))).toEqual([]);
      loaded.d.ctrl[0] = -2;
      const p = twin(loaded.mj, loaded.m, loaded.d, 1);
      const tendons = new SpatialTendons(p.model);
      const wrappedSteps = [0, 0, 0];
      let lengthErr = 0;
      const worst = run(p, 600, () => {
        for (let t = 0; t < 3; t++) {
          // MuJoCo's path has 4 points when the tendon wraps, 2 when it runs straight past the geom
          if ((loaded.d.ten_wrapnum[t] as number) > 2) wrappedSteps[t]!++;
          tendons.compute(p.d, t, 0);
          lengthErr = Math.max(lengthErr, Math.abs(tendons.length - (loaded.d.ten_length[t] as number)));
        }
      });
      // every kind of wrap was live for many steps (measured 456, 199 and 101 of 600)
      for (const k of wrappedSteps) expect(k).toBeGreaterThan(50);
      // measured 3.4e-15 (state) and 2.3e-15 (ten_length); 1e-10 and 1e-12 as above, and each fails on NaN
      expect(worst).toBeLessThanOrEqual(1e-10);
      expect(lengthErr).toBeLessThanOrEqual(1e-12);
    } finally {
      disposeMujoco(loaded);
    }
  });

  it('two entities with wrapping tendons merge into one scene where each moves as it does alone', () => {
    // both arms at the origin: their links must not touch
    const xml = WRAP_ARM_XML.replaceAll('type="capsule"', 'type="capsule" contype="0" conaffinity="0"');
    const alone = setConst(loadMJCF(write(xml)).model);
    const { model: merged } = mergeModels([loadMJCF(write(xml)), loadMJCF(write(xml))]);
    const both = setConst(merged);
    // the second entity's tendons name its own sites and geoms (world sites move to the front)
    for (let w = 0; w < alone.nwrap; w++) {
      const w2 = alone.nwrap + w, o1 = alone.wrapObjid[w]!, o2 = both.wrapObjid[w2]!;
      const names = alone.wrapType[w] === WrapType.Site ? [alone.siteName, both.siteName] : [alone.geomName, both.geomName];
      if (alone.wrapType[w] !== WrapType.Pulley) expect(names[1]![o2], `wrap ${w}`).toBe(names[0]![o1]);
    }
    const one = makeData(alone, 1, '64');
    const two = makeData(both, 1, '64');
    one.ctrl[0] = -2; two.ctrl[0] = -2; two.ctrl[1] = -2;
    let worst = 0;
    for (let s = 0; s < 300; s++) {
      stepCpu(alone, one, 0, 1);
      stepCpu(both, two, 0, 1);
      for (let k = 0; k < alone.nq; k++) {
        worst = Math.max(worst, Math.abs(two.qpos[k]! - one.qpos[k]!), Math.abs(two.qpos[alone.nq + k]! - one.qpos[k]!));
      }
    }
    expect(Math.abs(one.qpos[0]!)).toBeGreaterThan(0.5);
    // the same arithmetic in each entity: measured 0; a tendon on the other entity's sites drifts by 1e-1
    expect(worst).toBeLessThanOrEqual(1e-12);
  });

  it('a path MuJoCo rejects is refused at load, naming the tendon', () => {
    const body = '<worldbody><site name="a"/><body><joint axis="0 1 0"/><geom name="g" size="0.1"/><geom name="box" type="box" size="0.1 0.1 0.1"/><site name="b" pos="1 0 0"/><site name="c" pos="0 0 1"/></body></worldbody>';
    const boxed = write(`<mujoco>${body}<tendon><spatial name="wrap"><site site="a"/><geom geom="box"/><site site="b"/></spatial></tendon></mujoco>`);
    expect(() => loadMJCF(boxed)).toThrow(/<geom>: geom "box" is not a sphere or cylinder/);
    const loose = write(`<mujoco>${body}<tendon><spatial name="wrap"><site site="a"/><geom geom="g"/><pulley divisor="2"/><site site="b"/><site site="c"/></spatial></tendon></mujoco>`);
    expect(() => loadMJCF(loose)).toThrow(/<geom>: tendon "wrap": a wrapping geom must sit between two sites/);
    const short = write(`<mujoco>${body}<tendon><spatial><site site="a"/></spatial></tendon></mujoco>`);
    expect(() => loadMJCF(short)).toThrow(/tendon 0: a spatial tendon's path needs at least two objects/);
    const ending = write(`<mujoco>${body}<tendon><spatial name="p"><site site="a"/><site site="b"/><pulley divisor="2"/></spatial></tendon></mujoco>`);
    expect(() => loadMJCF(ending)).toThrow(/tendon "p": the path ends with a pulley/);
    const unknown = write(`<mujoco>${body}<tendon><spatial><site site="a"/><site site="nope"/></spatial></tendon></mujoco>`);
    expect(() => loadMJCF(unknown)).toThrow(/unknown site "nope"/);
    const fine = write(`<mujoco>${body}<tendon><spatial><site site="a"/><site site="b"/><pulley divisor="2"/><site site="b"/><site site="c"/></spatial></tendon></mujoco>`);
    expect(loadMJCF(fine).model.ntendon).toBe(1);
  });
});
