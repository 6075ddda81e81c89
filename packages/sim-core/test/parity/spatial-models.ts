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

/**
 * The arm with tendons wrapping geoms: an extensor over a cylinder at the elbow (its side site above the joint),
 * a tendon around a sphere at the shoulder out of the arm's plane (no side site: the shorter way round), and one
 * whose side site lies inside a sphere (MuJoCo's inside wrap). Stiff enough, and one driven, to move the arm.
 */
export const WRAP_ARM_XML = `<mujoco><option timestep="0.002"/>
<worldbody>
  <site name="anchor" pos="-0.1 0.1 0.02"/>
  <site name="back" pos="-0.12 0 0.07"/>
  <body name="upper">
    <joint name="shoulder" axis="0 1 0" damping="0.05"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
    <geom name="ball" size="0.06" contype="0" conaffinity="0" mass="0.01"/>
    <geom name="knob" pos="0.2 0 0" size="0.05" contype="0" conaffinity="0" mass="0.01"/>
    <site name="u_top" pos="0.3 0 0.03"/>
    <site name="u_side" pos="0.1 -0.1 0"/>
    <site name="u_in" pos="0.2 0 0.01"/>
    <site name="u_far" pos="0.33 0 0.07"/>
    <body name="fore" pos="0.4 0 0">
      <joint name="elbow" axis="0 1 0" damping="0.05"/>
      <geom name="drum" type="cylinder" size="0.04 0.03" zaxis="0 1 0" contype="0" conaffinity="0" mass="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.35 0 0" size="0.025" mass="0.6"/>
      <site name="side_top" pos="0 0 0.09"/>
      <site name="f_top" pos="0.12 0.01 0.03"/>
    </body>
  </body>
</worldbody>
<tendon>
  <spatial name="extensor" stiffness="30" springlength="0.2" damping="0.3">
    <site site="u_top"/><geom geom="drum" sidesite="side_top"/><site site="f_top"/>
  </spatial>
  <spatial name="around" stiffness="20" damping="0.2">
    <site site="anchor"/><geom geom="ball"/><site site="u_side"/>
  </spatial>
  <spatial name="inside" stiffness="10" springlength="0.1">
    <site site="back"/><geom geom="knob" sidesite="u_in"/><site site="u_far"/>
  </spatial>
</tendon>
<actuator><motor name="lift" tendon="extensor" gear="1" ctrlrange="-3 3" ctrllimited="true"/></actuator>
</mujoco>`;

/** The arm with a fixed tendon between its spatial ones (MuJoCo keeps the XML order), limited and driven, and a
 *  position servo on the spring tendon. */
export const MIXED_TENDON_XML = SPATIAL_ARM_XML.replace('<spatial name="spring"',
  '<fixed name="couple" limited="true" range="-0.6 0.6" frictionloss="0.01"><joint joint="shoulder" coef="0.5"/><joint joint="elbow" coef="1"/></fixed>\n  <spatial name="spring"')
  .replace('</actuator>', '<motor tendon="couple" gear="2" ctrlrange="-1 1" ctrllimited="true"/><position tendon="spring" kp="25"/></actuator>');
