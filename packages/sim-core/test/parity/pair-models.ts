/**
 * Models with explicit contact pairs (<contact><pair>) for the parity tests (issue 13), written for them.
 */

/**
 * A ball dropped on a table top, both contype 0: only the pair lets them touch. The table is a jointless body,
 * welded to the world, so the weld filter would drop the pair too. The pair does not say its friction, so it
 * takes the default class's 1 (not the ball's 0.3); the capsule collides with the floor dynamically.
 */
export const PAIR_ONLY_XML = `
<mujoco model="pair-only">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="table" pos="0 0 0.2">
      <geom name="top" type="box" size="0.3 0.3 0.05" contype="0" conaffinity="0"/>
    </body>
    <body name="ball" pos="0.05 0.02 0.4">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" contype="0" conaffinity="0" friction="0.3"/>
    </body>
    <body name="cap" pos="0.6 0 0.2">
      <freejoint/>
      <geom name="cap" type="capsule" size="0.04 0.1" euler="0 90 0"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="ball" geom2="top"/>
  </contact>
</mujoco>`;

/**
 * A box sliding and spinning on the floor through a pair that overrides everything the geoms would give
 * (condim 4, friction, solref, solimp, margin and gap), so the dynamic box-floor pair must not be collided
 * again; a puck (higher priority: its own low friction on the floor) slides into the box through a
 * frictionless pair listed first but sorted after the floor pairs (its body signature is higher). The puck
 * starts 0.5 mm deep: at exactly 0 the f32 backends may disagree for a step on whether it touches.
 */
export const PAIR_OVERRIDE_XML = `
<mujoco model="pair-override">
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1" friction="0.9"/>
    <body name="box" pos="0 0 0.103">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.1 0.1" margin="0.002"/>
    </body>
    <body name="puck" pos="0.3 0.03 0.0395">
      <freejoint/>
      <geom name="puck" type="box" size="0.04 0.04 0.04" priority="1" friction="0.1"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="puck" geom2="box" condim="1"/>
    <pair name="slide" geom1="box" geom2="floor" condim="4" friction="0.4 0.4 0.02 0.001 0.001" solref="0.01 0.8"
          solimp="0.8 0.9 0.002 0.5 2" margin="0.01" gap="0.004"/>
  </contact>
</mujoco>`;

/** qvel of PAIR_OVERRIDE_XML: the box slides along x and spins about z; the puck slides towards it. */
export const PAIR_OVERRIDE_QVEL = [0.6, 0.1, 0, 0, 0, 3, -1.5, 0, 0, 0, 0, 0];

/**
 * Pairs taking their parameters from <default><pair> classes: the main class (condim 6, its friction) and a
 * child class that changes solref, margin and only the first friction number. Two capsules and a cylinder-free
 * sphere lie on the floor with contype 0, each touching it only through its pair.
 */
export const PAIR_DEFAULTS_XML = `
<mujoco model="pair-defaults">
  <default>
    <pair condim="6" friction="0.7 0.7 0.01 0.002 0.002"/>
    <default class="soft">
      <pair solref="0.05 1" margin="0.005" friction="0.5"/>
    </default>
    <geom contype="0" conaffinity="0" friction="0.2 0.1 0.1" margin="0.02"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="a" pos="0 0 0.05">
      <freejoint/>
      <geom name="a" type="capsule" size="0.04 0.1" euler="0 90 0"/>
    </body>
    <body name="b" pos="0 0.5 0.05">
      <freejoint/>
      <geom name="b" type="sphere" size="0.05"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="floor" geom2="a"/>
    <pair geom1="b" geom2="floor" class="soft"/>
  </contact>
</mujoco>`;

/** qvel of PAIR_DEFAULTS_XML: the capsule rolls and slides, the sphere spins and rolls. */
export const PAIR_DEFAULTS_QVEL = [0.3, 0.8, 0, 0, 0, 1, 0.5, 0, 0, 0, 4, 6];
