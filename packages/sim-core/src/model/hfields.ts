/**
 * Height fields into and out of the Model's hfield_* fields, in MuJoCo's layout: one entry per height field,
 * in order of first use by a geom, each stored once however many geoms share it.
 */
import { GeomType, type Model } from './model.js';

/** A compiled height field: size (x, y half-extents, elevation scale, base depth), data row-major, in [0, 1]. */
export interface HFieldSpec { name: string; nrow: number; ncol: number; size: [number, number, number, number]; data: Float64Array }

/** Fills m.nhfield, the hfield_* arrays and the hfield geoms' geom_dataid; a model without height fields gets none. */
export function layoutHFields(m: Model, geomHFields: ReadonlyArray<HFieldSpec | undefined>): void {
  const fields: HFieldSpec[] = [];
  const id = new Map<HFieldSpec, number>();
  geomHFields.forEach((h, g) => {
    if (!h) return;
    if (!id.has(h)) { id.set(h, fields.length); fields.push(h); }
    if (!m.geomDataid) m.geomDataid = new Int32Array(m.ngeom).fill(-1);
    m.geomDataid[g] = id.get(h)!;
  });
  if (fields.length === 0) return;
  const n = fields.length;
  m.nhfield = n;
  m.hfieldSize = new Float64Array(4 * n);
  m.hfieldNrow = new Int32Array(n);
  m.hfieldNcol = new Int32Array(n);
  m.hfieldAdr = new Int32Array(n);
  m.hfieldData = new Float64Array(fields.reduce((a, h) => a + h.data.length, 0));
  m.hfieldName = fields.map((h) => h.name);
  let adr = 0;
  fields.forEach((h, k) => {
    m.hfieldSize!.set(h.size, 4 * k);
    m.hfieldNrow![k] = h.nrow;
    m.hfieldNcol![k] = h.ncol;
    m.hfieldAdr![k] = adr;
    m.hfieldData!.set(h.data, adr);
    adr += h.data.length;
  });
}

/** Height field `k` of the model as a spec (sharing the model's data). */
export function hfieldSpec(m: Model, k: number): HFieldSpec {
  const adr = m.hfieldAdr![k]!, nrow = m.hfieldNrow![k]!, ncol = m.hfieldNcol![k]!;
  const s = m.hfieldSize!;
  return {
    name: m.hfieldName?.[k] ?? '', nrow, ncol, size: [s[4 * k]!, s[4 * k + 1]!, s[4 * k + 2]!, s[4 * k + 3]!],
    data: m.hfieldData!.subarray(adr, adr + nrow * ncol),
  };
}

/** The height field of geom g, or -1 when g is not an hfield geom. */
export function geomHField(m: Model, g: number): number {
  return m.geomType[g] === GeomType.HField ? (m.geomDataid?.[g] ?? -1) : -1;
}
