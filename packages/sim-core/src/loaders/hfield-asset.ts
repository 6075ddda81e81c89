/**
 * MJCF `<hfield>` assets compiled as MuJoCo 3.3 does (mjCHField::Compile): inline `elevation` data (rows given
 * top to bottom, i.e. from +y to -y, so they are stored reversed) or a file in MuJoCo's own binary format (int32
 * nrow, int32 ncol, then nrow x ncol float32, rows from -y), then normalised in float32 to [0, 1] (minus the
 * minimum, divided by the range unless the field is flat). PNG height maps are refused: sim-core has no PNG
 * decoder. Errors name the `<hfield>` element.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import type { HFieldSpec } from '../model/hfields.js';
import type { Attrs } from './attrs.js';
import type { ModelBudget } from './limits.js';
import { fail, type XmlElement } from './xml.js';

/** mjEPS: a range at most this wide leaves the data unscaled. */
const EPS = 1e-14;
const CUSTOM = 'image/vnd.mujoco.hfield';

interface HFieldRead {
  el: XmlElement; name: string; file: string | null; nrow: number; ncol: number;
  size: [number, number, number, number]; elevation: number[] | null; compiled: HFieldSpec | null;
}

/** Where asset files are looked up: MuJoCo reads height fields from the compiler's meshdir too. */
export interface AssetDirs { meshdir: string; strippath: boolean; budget: ModelBudget }

export class HFieldAssets {
  private readonly fields = new Map<string, HFieldRead>();

  constructor(private readonly modelDir: string, private readonly dirs: AssetDirs) {}

  add(a: Attrs): void {
    const el = a.el;
    const file = a.str('file') ?? null;
    const contentType = a.str('content_type');
    const nrow = a.int('nrow') ?? 0, ncol = a.int('ncol') ?? 0;
    const size = a.nums('size', 4) ?? [0, 0, 0, 0];
    const elevation = a.vector('elevation') ?? null;
    let name = a.str('name') ?? '';
    if (!name && file) name = basename(file).replace(/\.[^.]*$/, '');
    if (!name) fail(el, 'empty name in height field');
    if (this.fields.has(name)) fail(el, `repeated hfield name "${name}"`);
    if (size.some((s) => !(s > 0))) fail(el, 'size parameter is not positive in hfield');
    if (nrow < 0 || ncol < 0) fail(el, 'nrow and ncol must be non-negative');
    if (file !== null) {
      const type = contentType ?? (/\.png$/i.test(file) ? 'image/png' : CUSTOM);
      if (type === 'image/png') fail(el, `PNG height fields are not supported ("${file}"): convert it to MuJoCo's binary hfield format or inline elevation data`);
      if (type !== CUSTOM) fail(el, `unsupported content type: '${type}'`);
      if (nrow || ncol || elevation) fail(el, 'hfield specified from file and manually');
    } else {
      if (nrow === 0 || ncol === 0) fail(el, 'hfield not specified (give nrow, ncol and elevation, or a file)');
      const refusal = this.dirs.budget.hfieldRefusal(nrow, ncol);
      if (refusal) fail(el, refusal);
      if (elevation && elevation.length !== nrow * ncol) fail(el, 'elevation data length must match nrow*ncol');
    }
    this.fields.set(name, {
      el, name, file, nrow, ncol, size: size as [number, number, number, number], elevation, compiled: null,
    });
  }

  /** The compiled height field `name` for the geom `geomEl` (which the error names when there is none). */
  get(geomEl: XmlElement, name: string): HFieldSpec {
    const h = this.fields.get(name);
    if (!h) fail(geomEl, `hfield '${name}' not found`);
    if (!h.compiled) h.compiled = this.compile(h);
    return h.compiled;
  }

  private compile(h: HFieldRead): HFieldSpec {
    let nrow = h.nrow, ncol = h.ncol;
    let data: Float32Array;
    if (h.file !== null) {
      const rel = this.dirs.strippath ? basename(h.file) : h.file;
      const path = isAbsolute(rel) ? rel : resolve(this.modelDir, this.dirs.meshdir, rel);
      let bytes: Buffer;
      try {
        bytes = this.dirs.budget.readAsset(path);
      } catch (e) {
        fail(h.el, `cannot load hfield file "${h.file}": ${(e as Error).message}`);
      }
      if (bytes.length < 8) fail(h.el, `hfield missing header '${h.file}'`);
      nrow = bytes.readInt32LE(0);
      ncol = bytes.readInt32LE(4);
      if (nrow < 1 || ncol < 1) fail(h.el, `non-positive hfield dimensions in file '${h.file}'`);
      const refusal = this.dirs.budget.hfieldRefusal(nrow, ncol);
      if (refusal) fail(h.el, `${refusal} (file '${h.file}')`);
      if (bytes.length !== nrow * ncol * 4 + 8) fail(h.el, `unexpected file size in file '${h.file}'`);
      data = new Float32Array(nrow * ncol);
      for (let i = 0; i < nrow * ncol; i++) data[i] = bytes.readFloatLE(8 + 4 * i);
    } else {
      data = new Float32Array(nrow * ncol);
      const e = h.elevation;
      if (e) for (let r = 0; r < nrow; r++) for (let c = 0; c < ncol; c++) data[(nrow - 1 - r) * ncol + c] = e[r * ncol + c]!;
    }
    if (data.some((v) => !Number.isFinite(v))) fail(h.el, 'hfield data must be finite');
    // normalised in float32, as MuJoCo stores it
    let emin = Math.fround(1e10), emax = Math.fround(-1e10);
    for (const v of data) { emin = Math.min(emin, v); emax = Math.max(emax, v); }
    const range = Math.fround(emax - emin);
    for (let i = 0; i < data.length; i++) {
      data[i] = data[i]! - emin;
      if (range > EPS) data[i] = data[i]! / range;
    }
    return { name: h.name, nrow, ncol, size: h.size, data: Float64Array.from(data) };
  }
}
