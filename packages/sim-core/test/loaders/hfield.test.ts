/**
 * `<hfield>` assets and hfield geoms compiled by loadMJCF and by MuJoCo 3.3 (inline elevation, MuJoCo's binary
 * file format written here): the height field's data (rows reversed from the XML's top-to-bottom order,
 * normalised to [0, 1] in float32), its size, the geom's size and bounding radius, and the mass a free body
 * takes from its hfield geom (MuJoCo gives it a box's volume and inertia). Refused: PNG files, malformed input,
 * and hfield collision on the GPU backend.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refuseHFieldCollision } from '../../src/backend/gpu.js';
import { collisionPlan } from '../../src/collision/plan.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { GeomType, type Model } from '../../src/model/model.js';
import { mujoco } from '../helpers/mujoco.js';
import { BUMP, SLOPE } from '../parity/hfield-models.js';

let counter = 0;

/** The model loaded by sim-core and by MuJoCo from the same folder; `files` are written next to model.xml. */
async function both(xml: string, files: Record<string, Buffer> = {}) {
  const mj = await mujoco();
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-hfield-load-'));
  const vdir = `/hf${counter++}`;
  mj.FS.mkdir(vdir);
  for (const [name, data] of [...Object.entries(files), ['model.xml', Buffer.from(xml)] as const]) {
    writeFileSync(join(dir, name), data);
    mj.FS.writeFile(`${vdir}/${name}`, new Uint8Array(data));
  }
  const ours = loadMJCF(join(dir, 'model.xml')).model;
  const m = mj.MjModel.loadFromXML(`${vdir}/model.xml`);
  if (!m) throw new Error('MuJoCo could not load the model');
  const ref = {
    hfieldData: Array.from(m.hfield_data as Float32Array), hfieldSize: Array.from(m.hfield_size as Float64Array),
    nrow: Array.from(m.hfield_nrow as Int32Array), ncol: Array.from(m.hfield_ncol as Int32Array),
    geomSize: Array.from(m.geom_size as Float64Array), geomRbound: Array.from(m.geom_rbound as Float64Array),
    bodyMass: Array.from(m.body_mass as Float64Array), bodyInertia: Array.from(m.body_inertia as Float64Array),
  };
  m.delete();
  return { ours, ref };
}

/** Largest |a - b|; NaN or a length mismatch gives Infinity. */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.abs(a[i]! - b[i]!);
    d = Number.isNaN(x) ? Infinity : Math.max(d, x);
  }
  return d;
}

const hfieldGeoms = (m: Model) => Array.from({ length: m.ngeom }, (_, g) => g).filter((g) => m.geomType[g] === GeomType.HField);

/** MuJoCo's binary hfield file: int32 nrow, int32 ncol, then float32 data from the -y row up. */
function hfieldFile(nrow: number, ncol: number, data: number[]): Buffer {
  const b = Buffer.alloc(8 + 4 * data.length);
  b.writeInt32LE(nrow, 0);
  b.writeInt32LE(ncol, 4);
  data.forEach((v, i) => { b.writeFloatLE(v, 8 + 4 * i); });
  return b;
}

const scene = (asset: string, world: string, body = '') =>
  `<mujoco><asset>${asset}</asset><worldbody>${world}${body}</worldbody></mujoco>`;

describe('hfield assets compile as MuJoCo compiles them', () => {
  const cases: Record<string, { xml: string; files?: Record<string, Buffer> }> = {
    'inline elevation with a bump (rows reversed, already in [0, 1])': {
      xml: scene(BUMP, '<geom type="hfield" hfield="bump"/>'),
    },
    'inline elevation 2..5 (normalised), two geoms sharing it, one moved': {
      xml: scene(SLOPE, '<geom type="hfield" hfield="slope"/><geom type="hfield" hfield="slope" pos="1 0 0" euler="0 0 30"/>'),
    },
    'a binary file with awkward values (normalised in float32)': {
      xml: scene('<hfield name="f" file="terrain.bin" size="1 2 0.3 0.1"/>', '<geom type="hfield" hfield="f"/>'),
      files: { 'terrain.bin': hfieldFile(3, 2, [0.1, -0.7, 1.3e-3, 2.9, 0.30000001, -0.7]) },
    },
    'a flat field (all equal: left at 0), base deeper than the elevation': {
      xml: scene('<hfield name="flat" nrow="2" ncol="3" size="0.5 0.5 0.01 0.2" elevation="4 4 4 4 4 4"/>', '<geom type="hfield" hfield="flat"/>'),
    },
    'inline data with a content_type (ignored without a file, as in MuJoCo)': {
      xml: scene('<hfield name="c" content_type="image/png" nrow="2" ncol="2" size="0.5 0.5 0.1 0.1" elevation="1 2 3 4"/>', '<geom type="hfield" hfield="c"/>'),
    },
    'nrow and ncol without elevation (zeros)': {
      xml: scene('<hfield name="z" nrow="3" ncol="3" size="0.5 0.5 0.1 0.1"/>', '<geom type="hfield" hfield="z"/>'),
    },
    'an hfield geom on a free body gives it a box mass and inertia': {
      xml: scene(SLOPE, '', '<body pos="0 0 1"><freejoint/><geom type="hfield" hfield="slope" density="300"/></body>'),
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      const { ours, ref } = await both(c.xml, c.files);
      const gs = hfieldGeoms(ours);
      expect(gs.length).toBeGreaterThan(0);
      // data are float32 in both: exact
      expect(maxDiff(ours.hfieldData!, ref.hfieldData)).toBe(0);
      expect(Array.from(ours.hfieldNrow!)).toEqual(ref.nrow);
      expect(Array.from(ours.hfieldNcol!)).toEqual(ref.ncol);
      expect(maxDiff(ours.hfieldSize!, ref.hfieldSize)).toBe(0);
      // geom size and rbound: the same formula; measured equal, 1e-15 allows one rounding
      expect(maxDiff(ours.geomSize, ref.geomSize)).toBeLessThan(1e-15);
      expect(maxDiff(ours.geomRbound, ref.geomRbound)).toBeLessThan(1e-15);
      expect(maxDiff(ours.bodyMass, ref.bodyMass)).toBeLessThan(1e-12);
      expect(maxDiff(ours.bodyInertia, ref.bodyInertia)).toBeLessThan(1e-12);
      for (const g of gs) expect(ours.geomDataid![g]).toBeGreaterThanOrEqual(0);
    });
  }

  it('a free body with an hfield geom really has mass (not zero)', async () => {
    const { ours } = await both(cases['an hfield geom on a free body gives it a box mass and inertia']!.xml);
    // 8 x 0.3 x 0.2 x (0.25 x 0.06 + 0.5 x 0.02) x 300
    expect(Math.abs(ours.bodyMass[1]! - 8 * 0.3 * 0.2 * 0.025 * 300)).toBeLessThan(1e-12);
  });
});

describe('hfield refusals', () => {
  const load = (xml: string, files: Record<string, Buffer | string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-hfield-bad-'));
    for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
    writeFileSync(join(dir, 'model.xml'), xml);
    return () => loadMJCF(join(dir, 'model.xml'));
  };
  it('a PNG height map, in one line naming the file and the way out', () => {
    expect(load(scene('<hfield name="p" file="terrain.png" size="1 1 0.1 0.1"/>', '<geom type="hfield" hfield="p"/>'), { 'terrain.png': 'x' }))
      .toThrow(/PNG height fields are not supported \("terrain.png"\): convert it to MuJoCo's binary hfield format or inline elevation data/);
  });
  it('a binary file of the wrong size, or a directory', () => {
    const bad = hfieldFile(3, 2, [1, 2, 3, 4, 5]);
    expect(load(scene('<hfield name="f" file="t.bin" size="1 1 0.1 0.1"/>', '<geom type="hfield" hfield="f"/>'), { 't.bin': bad }))
      .toThrow(/unexpected file size in file 't.bin'/);
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-hfield-dir-'));
    writeFileSync(join(dir, 'model.xml'), scene(`<hfield name="f" file="${dir}" size="1 1 0.1 0.1"/>`, '<geom type="hfield" hfield="f"/>'));
    expect(() => loadMJCF(join(dir, 'model.xml'))).toThrow(/not a regular file/);
  });
  it('elevation of the wrong length, a non-positive size, a missing or unknown hfield', () => {
    expect(load(scene('<hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1" elevation="1 2 3"/>', '')))
      .toThrow(/elevation data length must match nrow\*ncol/);
    expect(load(scene('<hfield name="h" nrow="2" ncol="2" size="1 0 0.1 0.1"/>', ''))).toThrow(/size parameter is not positive in hfield/);
    expect(load(scene(SLOPE, '<geom type="hfield"/>'))).toThrow(/an hfield geom needs an hfield attribute/);
    expect(load(scene(SLOPE, '<geom type="hfield" hfield="nope"/>'))).toThrow(/hfield 'nope' not found/);
  });
  it('the GPU backend refuses a colliding hfield in one line naming it and the CPU backend', () => {
    const model = load(scene(SLOPE, '<geom name="ground" type="hfield" hfield="slope"/>', '<body pos="0 0 .3"><freejoint/><geom type="sphere" size=".05"/></body>'))().model;
    expect(() => refuseHFieldCollision(model)).toThrow(
      "the GPU backend has no height field collision: hfield 'ground' can touch other geoms; height fields run on the CPU backend (backend cpu)");
  });
  it('a plane and an hfield are not collided, as in MuJoCo (no error, no pair)', () => {
    const model = load(scene(SLOPE, '<geom type="plane" size="1 1 1"/>', '<body pos="0 0 .3"><freejoint/><geom type="hfield" hfield="slope"/></body>'))().model;
    expect(collisionPlan(model).npair).toBe(0);
  });
});
