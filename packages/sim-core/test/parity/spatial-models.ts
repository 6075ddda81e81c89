/**
 * Models with spatial tendons (issue 13), written for the parity tests: a two-link arm in a vertical plane with
 * a flexor over sites on both links (limited, with friction loss, driven by a tendon motor), a spring-damper
 * tendon with an explicit spring length, and a tendon through a pulley whose spring length is its length at
 * qpos_spring.
 */
export const SPATIAL_ARM_XML = `<mujoco><option timestep="0.002"/>
<worldbody>
  <site name="anchor" pos="0 0 0.3"/>
  <site name="anchor2" pos="0.2 0 -0.15"/>
  <body name="upper">
    <joint name="shoulder" axis="0 1 0" damping="0.05"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04" mass="1"/>
    <site name="u1" pos="0.1 0 0.05"/>
    <site name="u2" pos="0.35 0 0.04"/>
    <site name="u3" pos="0.3 0 -0.04"/>
    <body name="fore" pos="0.4 0 0">
      <joint name="elbow" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.35 0 0" size="0.03" mass="0.6"/>
      <site name="f1" pos="0.1 0 0.03"/>
      <site name="f2" pos="0.3 0 -0.03"/>
    </body>
  </body>
</worldbody>
<tendon>
  <spatial name="flexor" limited="true" range="0.55 0.8" frictionloss="0.02">
    <site site="anchor"/><site site="u1"/><site site="u2"/><site site="f1"/>
  </spatial>
  <spatial name="spring" stiffness="40" damping="0.8" springlength="0.45">
    <site site="anchor2"/><site site="u3"/><site site="f2"/>
  </spatial>
  <spatial name="pulley" stiffness="15" damping="0.2">
    <site site="anchor"/><site site="u2"/><pulley divisor="2"/><site site="u3"/><site site="f2"/>
  </spatial>
</tendon>
<actuator><motor name="pull" tendon="flexor" gear="1.5" ctrlrange="-4 4" ctrllimited="true"/></actuator>
</mujoco>`;
