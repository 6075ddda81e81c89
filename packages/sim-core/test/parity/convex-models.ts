/** Pieces of the general convex pairs' test scenes, shared by the MuJoCo parity test and the GPU test. */

/** A floor and two cylinder rails along y, 0.24 apart, their tops at z 0.08. */
export const RAILS = `<geom type="plane" size="0 0 0.05"/>
  <geom type="cylinder" size="0.04 0.4" pos="0.12 0 0.04" euler="90 0 0"/>
  <geom type="cylinder" size="0.04 0.4" pos="-0.12 0 0.04" euler="90 0 0"/>`;
/** A box table whose top is at z 0. */
export const TABLE = '<geom type="box" size="0.5 0.5 0.05" pos="0 0 -0.05"/>';
/** An MJCF model of world geoms and bodies, at MuJoCo's default timestep. */
export const scene = (world: string, body: string): string =>
  `<mujoco><option timestep="0.002"/><worldbody>${world}${body}</worldbody></mujoco>`;
