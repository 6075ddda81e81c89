/**
 * Height field scenes shared by the height field tests, and MuJoCo's compiled hfield fields in sim-core's
 * Model form (the test helper's model copy leaves them out).
 */
import type { Model } from '../../src/model/model.js';
import type { Mj } from '../helpers/mujoco.js';

/** A 6 x 5 grid with a bump near its middle (rows top to bottom, as MJCF writes them), 0.1 high on a 0.05 base. */
export const BUMP = `<hfield name="bump" nrow="5" ncol="6" size="0.4 0.3 0.1 0.05" elevation="
  0 0 0 0 0 0
  0 0.2 0.5 0.4 0.1 0
  0 0.4 1 0.8 0.2 0
  0 0.1 0.3 0.3 0.1 0
  0 0 0 0 0 0"/>`;

/** A 4 x 3 grid rising along x, 0.06 over 0.6 (about 5.7 degrees), unnormalised heights 2 to 5. */
export const SLOPE = '<hfield name="slope" nrow="3" ncol="4" size="0.3 0.2 0.06 0.02" elevation="2 3 4 5  2 3 4 5  2 3 4 5"/>';

export const hfieldScene = (asset: string, field: string, body: string, fieldAttrs = ''): string =>
  `<mujoco><option timestep="0.002"/><asset>${asset}</asset><worldbody>
  <geom name="terrain" type="hfield" hfield="${field}" ${fieldAttrs}/>${body}</worldbody></mujoco>`;

/** MuJoCo's hfield_* fields and geom_dataid, to patch into a Model copied from MuJoCo. */
export function hfieldFields(m: Mj): Partial<Model> {
  const i32 = (a: ArrayLike<number>): Int32Array => Int32Array.from(a);
  const f64 = (a: ArrayLike<number>): Float64Array => Float64Array.from(a);
  return {
    nhfield: m.nhfield, hfieldSize: f64(m.hfield_size), hfieldNrow: i32(m.hfield_nrow), hfieldNcol: i32(m.hfield_ncol),
    hfieldAdr: i32(m.hfield_adr), hfieldData: f64(m.hfield_data), geomDataid: i32(m.geom_dataid),
  };
}
