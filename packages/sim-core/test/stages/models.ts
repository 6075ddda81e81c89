/** Small MJCF models for the stage tests (inline, no includes). */

/**
 * Every joint type, off-centre joints and inertias, armature, damping, springs (with springref), a free
 * body with a child, geoms and sites of every frame kind, and the three actuator forms (position with kv,
 * motor with gear and limits, general affine).
 */
export const ZOO_XML = `
<mujoco model="zoo">
  <option gravity="0.3 -0.2 -9.81" timestep="0.002"/>
  <worldbody>
    <site name="world_site" pos="0.1 0 0"/>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="base" pos="0.1 0.2 0.3" quat="0.9 0.1 0.2 0.3">
      <joint name="h1" type="hinge" axis="0.3 1 0.2" pos="0.05 0 0.01" damping="0.5" stiffness="2" armature="0.1"/>
      <inertial pos="0.01 0.02 0.03" quat="0.8 0.1 0.5 0.2" mass="1.5" diaginertia="0.03 0.02 0.01"/>
      <geom type="capsule" size="0.05 0.2" pos="0.1 0 0" quat="0.7 0.7 0 0"/>
      <site name="s1" pos="0 0.1 0" quat="0.5 0.5 0.5 0.5"/>
      <body name="link2" pos="0.2 0.1 0">
        <joint name="s2" type="slide" axis="1 0.2 0" damping="0.3" stiffness="1" springref="0.1" armature="0.05"/>
        <joint name="h2" type="hinge" axis="0 0 1" pos="0 0.03 0"/>
        <geom type="box" size="0.1 0.05 0.02" density="500"/>
        <site name="s2site"/>
        <body name="ballbody" pos="0 0 0.2" quat="0.6 0 0.8 0">
          <joint name="b3" type="ball" pos="0.01 0 0" damping="0.2" stiffness="0.5"/>
          <geom type="sphere" size="0.05" pos="0.1 0 0"/>
          <geom type="cylinder" size="0.03 0.1" quat="0.9 0 0.3 0.1"/>
        </body>
      </body>
    </body>
    <body name="floating" pos="1 0 1">
      <joint name="f" type="free" damping="0.05" stiffness="0.3"/>
      <geom type="box" size="0.1 0.2 0.3" mass="2" pos="0.02 0 0"/>
      <body name="child" pos="0 0 0.3">
        <joint name="hc" type="hinge" axis="1 0 0" armature="0.02"/>
        <geom type="capsule" size="0.05 0.1" fromto="0 0 0 0 0.2 0.1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="p_h1" joint="h1" kp="50" kv="3" ctrlrange="-1 1"/>
    <motor name="m_s2" joint="s2" gear="2" ctrllimited="true" ctrlrange="-5 5" forcelimited="true" forcerange="-3 3"/>
    <general name="g_h2" joint="h2" gainprm="10" biasprm="0.1 -10 -0.1" biastype="affine" gear="1.5"/>
    <motor name="m_hc" joint="hc"/>
  </actuator>
</mujoco>`;

/** A double pendulum; `extra` goes into <option>, `damping` onto both hinges. */
export function doublePendulumXml(opts: { integrator: 'Euler' | 'implicitfast'; damping: number; extra?: string }): string {
  return `
<mujoco model="double_pendulum">
  <option timestep="0.002" integrator="${opts.integrator}" ${opts.extra ?? ''}/>
  <worldbody>
    <body name="upper" pos="0 0 2">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="${opts.damping}"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="${opts.damping}"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>`;
}
