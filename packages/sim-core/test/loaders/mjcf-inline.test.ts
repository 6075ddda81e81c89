/**
 * Small MJCF models that exercise one compiler feature each, compiled by loadMJCF and by MuJoCo and compared
 * field for field: geom inertia from density, fromto, orientation alternatives, degree units, default classes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF } from '../../src/loaders/index.js';
import { loadMujocoXml } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-mjcf-'));
let counter = 0;

async function compileBoth(xml: string) {
  const file = join(dir, `case${counter++}.xml`);
  writeFileSync(file, xml);
  const ours = loadMJCF(file);
  const { mj, m } = await loadMujocoXml(xml);
  return { ours, ref: mujocoModel(mj, m) };
}

const CASES: Record<string, string> = {
  'inertia from density for each primitive (one geom per body, and combined)': `
<mujoco>
  <worldbody>
    <body name="sphere" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body name="capsule" pos="1 0 1"><freejoint/><geom type="capsule" size="0.05 0.2" density="500"/></body>
    <body name="box" pos="2 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" quat="0.9 0.1 0.2 0.3"/></body>
    <body name="cylinder" pos="3 0 1"><freejoint/><geom type="cylinder" size="0.07 0.15" mass="2"/></body>
    <body name="combined" pos="4 0 1"><freejoint/>
      <geom type="box" size="0.1 0.1 0.1" pos="0.2 0 0"/>
      <geom type="sphere" size="0.05" pos="-0.1 0.1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.2 0.1" size="0.03"/>
      <geom type="cylinder" size="0.04 0.1" euler="30 0 45" group="4"/>
      <geom type="sphere" size="0.5" group="3" contype="0" conaffinity="0" density="0"/>
    </body>
  </worldbody>
</mujoco>`,
  'ellipsoids (issue 13): inertia from density and mass, fromto, bounding radius, with other geoms': `
<mujoco>
  <worldbody>
    <body name="e1" pos="0 0 1"><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.05" euler="10 20 30"/></body>
    <body name="e2" pos="1 0 1"><freejoint/><geom type="ellipsoid" size="0.3 0.1 0.1" mass="2" pos="0.1 0 0"/>
      <geom type="box" size="0.05 0.05 0.05" pos="-0.2 0 0"/></body>
    <body name="e3" pos="2 0 1"><joint axis="0 1 0"/><geom type="ellipsoid" fromto="0 0 0 0.2 0.1 0.3" size="0.04"/></body>
  </worldbody>
</mujoco>`,
  'fromto capsules, cylinders and boxes': `
<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="a">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
      <geom type="cylinder" fromto="0.1 0.2 0.3 -0.2 0.1 0.4" size="0.02"/>
      <geom type="box" fromto="0 0 0 1 1 1" size="0.03"/>
      <geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.01"/>
    </body>
  </worldbody>
</mujoco>`,
  'orientation alternatives in degrees (the default unit)': `
<mujoco>
  <worldbody>
    <body name="e" euler="10 20 30"><joint axis="1 1 0" range="-45 90"/><geom size="0.1"/>
      <body name="aa" axisangle="0 0 1 90" pos="0 0 0.3"><joint type="slide" range="-0.1 0.2"/><geom size="0.1"/>
        <body name="xy" xyaxes="0 1 0 -1 0 0" pos="0.2 0 0"><joint ref="30" springref="10" stiffness="3"/><geom type="box" size="0.1 0.1 0.1" zaxis="1 1 1"/>
          <site name="s" euler="0 90 0" pos="0.1 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>`,
  'radians with an extrinsic euler sequence': `
<mujoco>
  <compiler angle="radian" eulerseq="ZYX"/>
  <worldbody>
    <body name="b" euler="0.3 -0.2 1.1"><joint range="-1 1"/><geom type="capsule" size="0.02 0.1" euler="1 0.5 0.2"/>
      <inertial pos="0.1 0 0" euler="0.1 0.2 0.3" mass="1" diaginertia="0.3 0.2 0.15"/>
    </body>
  </worldbody>
</mujoco>`,
  'nested default classes, childclass and actuator shortcuts': `
<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.01" integrator="implicitfast" solver="CG" iterations="20" tolerance="1e-6" cone="pyramidal">
    <flag contact="disable"/>
  </option>
  <default>
    <joint damping="0.5" armature="0.01"/>
    <geom friction="0.7" condim="4"/>
    <default class="arm">
      <joint axis="0 1 0" range="-1 1" solreflimit="0.01 0.8"/>
      <geom type="capsule" size="0.03 0.1" rgba="1 0 0 1" margin="0.01" gap="0.005" priority="2" solmix="0.5"/>
      <position kp="50" kv="3"/>
      <default class="wrist">
        <joint axis="1 0 0" frictionloss="0.2" stiffness="1" springref="0.3"/>
        <geom type="box" size="0.02 0.02 0.02" contype="2" conaffinity="3"/>
        <motor gear="2" forcerange="-5 5"/>
      </default>
    </default>
  </default>
  <worldbody>
    <geom type="plane" size="0 0 1"/>
    <body name="upper" childclass="arm" pos="0 0 1">
      <joint name="shoulder"/>
      <geom/>
      <body name="lower" pos="0 0 0.2">
        <joint name="elbow" limited="false"/>
        <geom class="wrist" name="cube"/>
        <body name="hand" childclass="wrist" pos="0 0 0.1">
          <joint name="wrist"/>
          <geom/>
          <joint name="wrist_slide" type="slide" class="arm"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><joint joint1="shoulder" joint2="elbow" polycoef="0.1 2 0 0 0" solref="0.01 1"/></equality>
  <contact><exclude body1="lower" body2="upper"/></contact>
  <actuator>
    <position class="arm" joint="shoulder" ctrlrange="-0.5 0.5"/>
    <motor class="wrist" joint="wrist" name="wm"/>
    <general joint="elbow" ctrlrange="-1 1" gainprm="3" biastype="affine" biasprm="0 -3 -0.1" forcelimited="true" forcerange="-2 2"/>
    <velocity joint="wrist_slide" kv="4" ctrlrange="-2 2"/>
    <position joint="wrist" kp="10" inheritrange="0.5" ctrllimited="auto"/>
  </actuator>
  <keyframe>
    <key name="k" qpos="0.1 0.2 0.3 0.01" ctrl="0 0 0 0 0" time="1.5"/>
    <key qvel="1 2 3 4"/>
  </keyframe>
</mujoco>`,
  'one actuator slot per default class: the later shortcut wins, in either order': `
<mujoco>
  <compiler angle="radian"/>
  <default>
    <default class="general_then_position">
      <general dyntype="none" biastype="affine" ctrlrange="-1 1" forcerange="-87 87" gainprm="7" biasprm="1 2 3"/>
      <position forcerange="-100 100" kv="2"/>
    </default>
    <default class="position_then_general">
      <position kp="30" kv="3" forcerange="-5 5"/>
      <general biastype="none" forcerange="-6 6" gear="2"/>
    </default>
  </default>
  <worldbody>
    <body><joint name="a"/><geom size="0.1"/>
      <body pos="0 0 0.3"><joint name="b"/><geom size="0.1"/></body>
    </body>
  </worldbody>
  <actuator>
    <position class="general_then_position" joint="a" kp="40"/>
    <general class="general_then_position" joint="b"/>
    <position class="position_then_general" joint="a"/>
    <general class="position_then_general" joint="b" gainprm="9"/>
    <motor class="position_then_general" joint="b"/>
  </actuator>
</mujoco>`,
  'options, flags and compiler inertia settings': `
<mujoco>
  <compiler angle="radian" inertiafromgeom="true" inertiagrouprange="0 2" boundmass="0.01" boundinertia="1e-5" autolimits="true"/>
  <option timestep="0.004" gravity="0 0 -3" impratio="10" ls_tolerance="0.02" ls_iterations="7">
    <flag limit="disable" eulerdamp="disable"/>
  </option>
  <worldbody>
    <body>
      <inertial pos="0 0 0" mass="5" diaginertia="1 1 1"/>
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.05" group="1"/>
      <geom type="sphere" size="0.05" pos="0.2 0 0" group="3"/>
      <body pos="0.3 0 0"><joint type="slide" axis="1 0 0" range="-0.1 0.1" armature="0.2"/>
        <geom type="sphere" size="0.001" density="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>`,
};

describe('loadMJCF agrees with MuJoCo on small models', () => {
  for (const [name, xml] of Object.entries(CASES)) {
    it(name, async () => {
      const { ours, ref } = await compileBoth(xml);
      expect(diffModels(ours.model, ref)).toEqual([]);
    });
  }

  it('derives the inertia of each primitive from its density', async () => {
    const { ours } = await compileBoth(CASES['inertia from density for each primitive (one geom per body, and combined)']!);
    const m = ours.model;
    // sphere r=0.1, water: m = 1000*4/3*pi*r^3, I = 2/5 m r^2
    const ms = (1000 * 4 * Math.PI * 0.001) / 3;
    expect(m.bodyMass[1]).toBeCloseTo(ms, 12);
    expect(m.bodyInertia[3]).toBeCloseTo(0.4 * ms * 0.01, 14);
    // cylinder with explicit mass 2, r=0.07, half-height 0.15: Izz = m r^2 / 2
    expect(m.bodyMass[4]).toBe(2);
    expect(m.bodyInertia.subarray(12, 15).reduce((a, x) => Math.max(a, x), -Infinity)).toBeCloseTo((2 * (3 * 0.0049 + 0.09)) / 12, 12);
  });

  it('reports the options a file sets, and only those', async () => {
    const { ours } = await compileBoth(CASES['nested default classes, childclass and actuator shortcuts']!);
    expect(Object.keys(ours.options).sort()).toEqual(['cone', 'enableCollision', 'integrator', 'iterations', 'solver', 'timestep', 'tolerance']);
    expect(ours.options.enableCollision).toBe(false);
    expect(ours.model.opt.lsIterations).toBe(50);
  });
});
