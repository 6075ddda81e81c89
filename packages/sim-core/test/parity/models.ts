/** Small MJCF models written for the issue-13 parity tests, shared by the CPU (vs MuJoCo) and GPU (vs CPU) tests. */

/** A motor (ctrl 5) on a hinge limited to +-0.5 N m, and two motors on a slide limited together to [-1, 0.3]. */
export const ACTFRC_XML = `<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody>
  <body><joint name="hinge" axis="0 0 1" damping="0.1" actuatorfrcrange="-0.5 0.5"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>
  <body pos="0 1 0"><joint name="slide" type="slide" axis="1 0 0" actuatorfrcrange="-1 0.3"/>
    <geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
</worldbody><actuator>
  <motor joint="hinge" gear="2"/><motor joint="slide"/><motor joint="slide" gear="0.5"/>
</actuator></mujoco>`;
export const ACTFRC_CTRL = [5, 0.4, 0.2];

/** A box resting and sliding on a plane with friction 0 on both geoms: MuJoCo floors friction at 1e-5. */
export const FRICTIONLESS_BOX_XML = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" friction="0 0 0"/>
  <body pos="0 0 0.049"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1" friction="0 0 0"/></body>
</worldbody></mujoco>`;

/**
 * Three boxes stacked on a floor, each turned a little and the top one sliding (issue 13: box-box had no
 * collision code, so the tower sank into itself). Contacts: the floor's 4, and 4 or more per box-box face.
 */
export const BOX_TOWER_XML = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body name="b1" pos="0 0 0.05"><freejoint/><geom type="box" size="0.12 0.1 0.05" mass="1"/></body>
  <body name="b2" pos="0.01 0 0.149" euler="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="0.8"/></body>
  <body name="b3" pos="-0.01 0.01 0.25" euler="0.05 0 -0.2"><freejoint/><geom type="box" size="0.06 0.06 0.05" mass="0.5"/></body>
</worldbody><contact><exclude body1="b1" body2="b3"/></contact></mujoco>`;

/**
 * A chain of three capsules on ball joints hanging from the world, with damping, stiffness, armature and a
 * 20-degree cone limit on the middle joint, started swinging into a floor it hits (issue 13: ball joints
 * were refused at load).
 */
export const BALL_CHAIN_XML = `<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" pos="0 0 -0.55" size="0 0 0.05"/>
  <body name="l1" pos="0 0 0.5"><joint name="b1" type="ball" damping="0.05" armature="0.01"/>
    <geom type="capsule" fromto="0 0 0 0.25 0 -0.1" size="0.03"/>
    <body name="l2" pos="0.25 0 -0.1"><joint name="b2" type="ball" range="0 20" stiffness="0.5" damping="0.02"/>
      <geom type="capsule" fromto="0 0 0 0.2 0.05 -0.2" size="0.025"/>
      <body name="l3" pos="0.2 0.05 -0.2"><joint name="b3" type="ball" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0.1 -0.1 -0.3" size="0.02"/></body>
    </body>
  </body>
</worldbody><keyframe><key name="bent" qpos="0.96 0 0.28 0  1 0 0 0  0.92 0.2 0 0.33" qvel="0 0 0  0 0 0  0 1 0"/></keyframe></mujoco>`;

/**
 * A four-bar linkage closed by a connect equality (issue 13): two hinged links from the world, the second
 * link's tip tied to the first link's tip with a connect, swinging under gravity; plus a hanging bob tied to
 * the world by a connect without body2. The linked tips do not collide (as linkages usually exclude them).
 */
export const CONNECT_XML = `<mujoco><option timestep="0.002"/><worldbody>
  <body name="a" pos="0 0 1"><joint name="ha" axis="0 1 0" damping="0.05"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    <body name="c" pos="0.3 0 0"><joint name="hc" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.1 0 -0.3" size="0.02"/></body>
  </body>
  <body name="b" pos="0.4 0 1"><joint name="hb" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/></body>
  <body name="bob" pos="-0.5 0 1"><freejoint/><geom type="sphere" size="0.05"/></body>
</worldbody><contact><exclude body1="c" body2="b"/></contact><equality>
  <connect body1="c" body2="b" anchor="0.1 0 -0.3" solref="0.01 1"/>
  <connect body1="bob" anchor="0.1 0 0.2"/>
</equality></mujoco>`;

/** Weld equalities: a free tool welded to the tip of a two-hinge arm at its qpos0 pose (relpose computed by
 * setConst), with torquescale 2 and its own solref; and a free box pulled to a given pose in the world. */
export const WELD_XML = `<mujoco><option timestep="0.002"/><worldbody>
  <body name="arm" pos="0 0 1"><joint name="h1" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    <body name="tip" pos="0.3 0 0"><joint name="h2" axis="1 0 0" damping="0.1"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/></body>
  </body>
  <body name="tool" pos="0.55 0.02 0.98" euler="0.3 0.1 -0.2"><freejoint/><geom type="box" size="0.04 0.03 0.02"/></body>
  <body name="box" pos="-0.4 0 0.9"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
</worldbody><contact><exclude body1="tip" body2="tool"/></contact><equality>
  <weld body1="tool" body2="tip" anchor="0.05 0 0.01" torquescale="2" solref="0.02 1"/>
  <weld body1="box" relpose="-0.35 0.05 1.0 0.9238795 0 0.3826834 0"/>
</equality></mujoco>`;

/** Fixed tendons (Euler): one coupling two hinges within a limited range (with a margin), one a spring-damper
 * with a dead band and friction loss over the outer hinges, through a default class. */
export const TENDON_XML = `<mujoco><option timestep="0.002"/>
<default><tendon frictionloss="0.02"/><default class="soft"><tendon stiffness="20" damping="0.5" springlength="-0.05 0.05"/></default></default>
<worldbody>
  <body name="l1" pos="0 0 1.5"><joint name="h1" axis="0 1 0" damping="0.05"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
    <body name="l2" pos="0.3 0 0"><joint name="h2" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="l3" pos="0.3 0 0"><joint name="h3" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03"/></body>
    </body>
  </body>
</worldbody>
<tendon>
  <fixed name="couple" limited="true" range="-0.3 0.3" margin="0.01" solreflimit="0.01 1"><joint joint="h1" coef="1"/><joint joint="h2" coef="-0.5"/></fixed>
  <fixed name="spring" class="soft" frictionloss="0.1"><joint joint="h2" coef="1"/><joint joint="h3" coef="1"/></fixed>
</tendon></mujoco>`;

/** The tendon chain driven through its tendons: a motor on the coupling (gear 2, ctrl clamped) and a position
 * servo on the spring tendon. */
export const TENDON_ACTUATOR_XML = TENDON_XML.replace('</mujoco>',
  '<actuator><motor tendon="couple" gear="2" ctrlrange="-1 1" ctrllimited="true"/><position tendon="spring" kp="30"/></actuator></mujoco>');
export const TENDON_ACTUATOR_CTRL = [0.8, 0.4];

/**
 * Elliptic friction cones (issue 13), `opt` added to <option cone="elliptic">: a turned box sliding on a plane
 * until it rests (condim 3, four contacts).
 */
export const ELLIPTIC_BOX_XML = (opt: string): string => `<mujoco><option timestep="0.002" cone="elliptic" ${opt}/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" friction="0.5 0.005 0.0001"/>
  <body pos="0 0 0.049" euler="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="1" friction="0.3 0.005 0.0001"/></body>
</worldbody></mujoco>`;
export const ELLIPTIC_BOX_QVEL = [1.0, 0.3, 0, 0, 0, 0.5];

/** A spinning, rolling sphere with torsional and rolling friction (condim 4 or 6). */
export const ELLIPTIC_BALL_XML = (opt: string, condim: number): string => `<mujoco><option timestep="0.002" cone="elliptic" ${opt}/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" friction="0.8 0.02 0.01" condim="${condim}"/>
  <body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1" condim="${condim}"/></body>
</worldbody></mujoco>`;
export const ELLIPTIC_BALL_QVEL = [1.0, 0.3, 0, 0, 0, 3];

/**
 * A capsule (condim 4) dropped across a box resting on the floor, and apart from them a sphere rolling on its
 * own (two constraint islands).
 */
export const ELLIPTIC_STACK_XML = (opt: string): string => `<mujoco><option timestep="0.002" cone="elliptic" ${opt}/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05" friction="0.7 0.01 0.001"/>
  <body name="base" pos="0 0 0.06"><freejoint/><geom type="box" size="0.15 0.1 0.06" mass="2"/></body>
  <body name="log" pos="0.02 0 0.16" euler="0.2 1.571 0"><freejoint/><geom type="capsule" size="0.03 0.12" mass="0.4" condim="4" friction="0.9 0.02 0.002"/></body>
  <body name="ball" pos="1 0 0.08"><freejoint/><geom type="sphere" size="0.08" mass="0.5"/></body>
</worldbody></mujoco>`;

/**
 * A box thrown sliding, and a sphere on a vertical slide joint dropped on the floor beside it (its contact's
 * frictional rows move no dof): two islands, the second with a cone whose frictional rows are empty.
 */
export const ELLIPTIC_SLIDE_XML = `<mujoco><option timestep="0.002" cone="elliptic"/><worldbody>
  <geom name="floor" type="plane" size="0 0 0.05"/>
  <body pos="1 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  <body pos="0 0 0.12"><joint type="slide" axis="0 0 1"/><geom type="sphere" size="0.1" mass="1"/></body>
</worldbody></mujoco>`;
