/**
 * Mesh assets and mesh geoms compiled by loadMJCF and by MuJoCo 3.3 (inline vertices, OBJ and STL files written
 * here): every compiled field agrees (body mass, inertia and inertial frame, geom pos/quat/size/rbound, the
 * moved vertices) except the hull graph's internal order, whose vertex set must be MuJoCo's. Malformed mesh
 * input is refused naming the file and line or the element.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMJCF, loadURDF } from '../../src/loaders/index.js';
import { quatToMat, type Quat } from '../../src/model/frame-math.js';
import type { Model } from '../../src/model/model.js';
import { mujoco } from '../helpers/mujoco.js';
import { diffModels, mujocoModel } from './compare.js';

const BOX = '-.1 -.2 -.05  .1 -.2 -.05  -.1 .2 -.05  .1 .2 -.05  -.1 -.2 .05  .1 -.2 .05  -.1 .2 .05  .1 .2 .05';
const TET = '0 0 0  .3 0 0  0 .2 0  0 0 .1';
// irregular and convex, plus one interior vertex that must not be on the hull
const IRREGULAR = '0.13 0.02 -0.05  -0.11 0.07 0.03  0.04 -0.12 0.08  -0.02 -0.03 -0.14  0.09 0.11 0.12  -0.1 -0.09 -0.02  0.01 0.15 -0.06  0 0 0';

/** A triangular prism as OBJ: quads on the sides, triangles at the ends, a comment, normals and slashes. */
const PRISM_OBJ = `# prism
v 0 0 0
v 0.2 0 0
v 0.05 0.15 0
v 0 0 0.3
v 0.2 0 0.3
v 0.05 0.15 0.3
vn 0 0 1
f 1 3 2
f 4/1/1 5/1/1 6/1/1
f 1//1 2//1 5//1 4//1
f 2 3 6 5
f 3 1 4 6
`;

/** A binary STL of triangles `tris` over `vert`, as CAD tools write them. */
function stlOf(vert: number[][], tris: number[][]): Buffer {
  const b = Buffer.alloc(84 + 50 * tris.length);
  b.write('binary stl written by the test', 0, 'latin1');
  b.writeUInt32LE(tris.length, 80);
  tris.forEach((t, i) => {
    t.forEach((v, j) => {
      vert[v]!.forEach((x, k) => { b.writeFloatLE(x, 84 + 50 * i + 12 * (j + 1) + 4 * k); });
    });
  });
  return b;
}
const PRISM_V = [[0, 0, 0], [0.2, 0, 0], [0.05, 0.15, 0], [0, 0, 0.3], [0.2, 0, 0.3], [0.05, 0.15, 0.3]];
const PRISM_T = [[0, 2, 1], [3, 4, 5], [0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [2, 0, 3], [2, 3, 5]];

function asciiStl(vert: number[][], tris: number[][]): string {
  const facets = tris.map((t) => `facet normal 0 0 0\n outer loop\n${t.map((v) => `  vertex ${vert[v]!.join(' ')}\n`).join('')} endloop\nendfacet`);
  return `solid prism\n${facets.join('\n')}\nendsolid prism\n`;
}

let dirs = 0;

/** Writes `files` and the model into a fresh folder here and in MuJoCo's file system; compiles both. */
async function both(xml: string, files: Record<string, string | Buffer> = {}, urdf = false): Promise<{ ours: Model; ref: Model }> {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-'));
  const mj = await mujoco();
  const vdir = `/mesh${dirs++}`;
  mj.FS.mkdir(vdir);
  const write = (rel: string, data: string | Buffer) => {
    const parts = rel.split('/');
    for (let k = 1; k < parts.length; k++) {
      const sub = parts.slice(0, k).join('/');
      mkdirSync(join(dir, sub), { recursive: true });
      try { mj.FS.mkdir(`${vdir}/${sub}`); } catch { /* exists */ }
    }
    writeFileSync(join(dir, rel), data);
    mj.FS.writeFile(`${vdir}/${rel}`, typeof data === 'string' ? data : new Uint8Array(data));
  };
  for (const [name, data] of Object.entries(files)) write(name, data);
  const main = urdf ? 'robot.urdf' : 'model.xml';
  write(main, xml);
  const ours = urdf ? loadURDF(join(dir, main), { fixed: true }).model : loadMJCF(join(dir, main)).model;
  const m = mj.MjModel.loadFromXML(`${vdir}/${main}`);
  if (!m) throw new Error('MuJoCo could not load the model');
  const ref = mujocoModel(mj, m);
  m.delete();
  return { ours, ref };
}

/** The hull's vertices as a set of global vertex ids, per mesh. */
function hullSets(m: Model): number[][] {
  const out: number[][] = [];
  for (let k = 0; k < (m.nmesh ?? 0); k++) {
    const adr = m.meshGraphadr![k]!;
    if (adr < 0) { out.push([]); continue; }
    const nv = m.meshGraph![adr]!;
    out.push(Array.from(m.meshGraph!.subarray(adr + 2 + nv, adr + 2 + 2 * nv)).sort((a, b) => a - b));
  }
  return out;
}

function expectSame(ours: Model, ref: Model): void {
  // the hull graph lists the same vertices in qhull's order there and ours here; its vertex set is checked below
  const diffs = diffModels(ours, ref).filter((d) => !d.startsWith('meshGraph['));
  expect(diffs).toEqual([]);
  expect(hullSets(ours)).toEqual(hullSets(ref));
}

const world = (bodies: string) => `<worldbody><geom type="plane" size="1 1 .1"/>${bodies}</worldbody>`;

describe('mesh geoms compile as in MuJoCo 3.3', () => {
  it('inline meshes: a box, a tetrahedron (refpos, scale), an irregular mesh (refquat, interior vertex)', async () => {
    const xml = `<mujoco><asset>
      <mesh name="box" vertex="${BOX}"/>
      <mesh name="tet" vertex="${TET}" refpos="0.01 0 0" scale="1 2 1.5"/>
      <mesh name="irr" vertex="${IRREGULAR}" refquat="0.9 0.1 0.2 0.3"/>
    </asset>${world(`
      <body pos="0 0 1" euler="10 20 30"><freejoint/><geom type="mesh" mesh="box" pos=".1 0 0" euler="0 10 0"/></body>
      <body pos="1 0 1"><freejoint/><geom type="mesh" mesh="tet" density="500"/></body>
      <body pos="2 0 1"><freejoint/><geom type="mesh" mesh="irr" mass="2"/><geom type="sphere" size=".05" pos=".2 0 0"/></body>`)}</mujoco>`;
    const { ours, ref } = await both(xml);
    expectSame(ours, ref);
    // what a user sees: the box mesh weighs density x volume (8 kg). Its vertices are float32 as MuJoCo reads
    // them (4.5e-8 relative off here, measured): 1e-6 relative leaves a margin of 20
    expect(Math.abs(ours.bodyMass[1]! - 1000 * 0.2 * 0.4 * 0.1)).toBeLessThan(8e-6);
    expect(hullSets(ours)[2]).not.toContain(7);
  });

  it('OBJ (quads, meshdir) and STL (binary, scaled; named by content_type) files; inertia modes convex, exact and shell', async () => {
    const xml = `<mujoco><compiler meshdir="assets"/><asset>
      <mesh name="legacy" file="prism.obj"/>
      <mesh name="prism_convex" file="prism.obj" inertia="convex"/>
      <mesh name="prism_exact" file="prism.obj" inertia="exact"/>
      <mesh name="prism_shell" file="prism.obj" inertia="shell"/>
      <mesh file="prism.stl" scale="2 1 0.5"/>
      <mesh name="typed" file="prism.data" content_type="model/stl"/>
    </asset>${world(`
      <body pos="0 0 1"><freejoint/><geom type="mesh" mesh="legacy"/></body>
      <body pos="1 0 1"><freejoint/><geom type="mesh" mesh="prism_convex"/></body>
      <body pos="2 0 1"><freejoint/><geom type="mesh" mesh="prism_exact"/></body>
      <body pos="3 0 1"><freejoint/><geom type="mesh" mesh="prism_shell" contype="0" conaffinity="0"/></body>
      <body pos="4 0 1" quat="0 1 0 0"><freejoint/><geom type="mesh" mesh="legacy" pos="0 .1 0"/></body>
      <body pos="5 0 1"><freejoint/><geom type="mesh" mesh="prism"/></body>
      <body pos="6 0 1"><freejoint/><geom type="mesh" mesh="typed"/></body>`)}
    </mujoco>`;
    const { ours, ref } = await both(xml, {
      'assets/prism.obj': PRISM_OBJ, 'assets/prism.stl': stlOf(PRISM_V, PRISM_T), 'assets/prism.data': stlOf(PRISM_V, PRISM_T),
    });
    expectSame(ours, ref);
  });

  for (const fitaabb of [false, true]) {
    it(`primitives fitted to a mesh (mesh= on sphere, capsule, cylinder, ellipsoid, box geoms; fitaabb ${fitaabb})`, async () => {
      const fit = (type: string, extra = '') => `<body pos="0 0 1"><freejoint/><geom type="${type}" mesh="irr" pos=".05 0 0" euler="10 0 0" ${extra}/></body>`;
      const xml = `<mujoco><compiler fitaabb="${fitaabb}"/><asset><mesh name="irr" vertex="${IRREGULAR}" refquat="0.9 0.1 0.2 0.3"/></asset>${world(
        fit('sphere') + fit('capsule', 'fitscale="1.2"') + fit('cylinder') + fit('ellipsoid') + fit('box', 'density="300"'))}</mujoco>`;
      const { ours, ref } = await both(xml);
      // MuJoCo keeps the mesh asset no geom uses any more; sim-core stores meshes of mesh geoms only
      expect(ours.nmesh).toBeUndefined();
      const unused = ref as unknown as Record<string, unknown>;
      for (const k of ['nmesh', 'geomDataid', 'meshVertadr', 'meshVertnum', 'meshVert', 'meshGraphadr', 'meshGraph', 'meshName']) delete unused[k];
      expectSame(ours, ref);
    });
  }

  it('an ASCII STL (which MuJoCo 3.3 does not read) compiles as its binary twin', async () => {
    const xml = (file: string) => `<mujoco><asset><mesh name="p" file="${file}"/></asset>${world('<body><freejoint/><geom type="mesh" mesh="p"/></body>')}</mujoco>`;
    const { ours: binary } = await both(xml('p.stl'), { 'p.stl': stlOf(PRISM_V, PRISM_T) });
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-'));
    writeFileSync(join(dir, 'p.stl'), asciiStl(PRISM_V, PRISM_T));
    writeFileSync(join(dir, 'model.xml'), xml('p.stl'));
    const ascii = loadMJCF(join(dir, 'model.xml')).model;
    expect(diffModels(ascii, binary)).toEqual([]);
  });

  it('mesh geoms that neither collide nor add mass are dropped without reading their file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-'));
    writeFileSync(join(dir, 'model.xml'), `<mujoco><asset><mesh file="absent.stl"/></asset><worldbody><body>
      <freejoint/><geom size=".1"/><geom type="mesh" mesh="absent" contype="0" conaffinity="0" group="3"/>
    </body></worldbody><compiler inertiagrouprange="0 2"/></mujoco>`);
    const m = loadMJCF(join(dir, 'model.xml')).model;
    expect(m.ngeom).toBe(1);
    expect(m.nmesh).toBeUndefined();
  });
});

describe('malformed meshes are refused naming the file and line, or the element', () => {
  const load = (xml: string, files: Record<string, string | Buffer> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-'));
    for (const [k, v] of Object.entries(files)) writeFileSync(join(dir, k), v);
    mkdirSync(join(dir, 'folder.obj'));
    writeFileSync(join(dir, 'model.xml'), xml);
    return () => loadMJCF(join(dir, 'model.xml'));
  };
  const geomWith = (mesh: string) => `<mujoco><asset>${mesh}</asset><worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>`;

  it('an OBJ face that points past the vertices: file and line', () => {
    expect(load(geomWith('<mesh name="m" file="bad.obj"/>'), { 'bad.obj': 'v 0 0 0\nv 1 0 0\n\nf 1 2 9\n' }))
      .toThrow(/model\.xml:1: <mesh>: cannot load mesh file "bad\.obj": .*bad\.obj:4: vertex index 9 does not exist/);
    expect(load(geomWith('<mesh name="m" file="bad.obj"/>'), { 'bad.obj': 'v 0 0 0\nv 1 zero 0\n' })).toThrow(/bad\.obj:2: vertex coordinate "zero"/);
  });

  it('a truncated binary STL, a missing file, a folder', () => {
    const stl = stlOf(PRISM_V, PRISM_T).subarray(0, 200);
    expect(load(geomWith('<mesh name="m" file="cut.stl"/>'), { 'cut.stl': stl })).toThrow(/cut\.stl: binary STL of 8 triangles must be 484 bytes, is 200/);
    expect(load(geomWith('<mesh name="m" file="none.stl"/>'))).toThrow(/<mesh>: cannot load mesh file "none\.stl": .*ENOENT/);
    expect(load(geomWith('<mesh name="m" file="folder.obj"/>'))).toThrow(/not a regular file \(a directory\)/);
  });

  it('a flat mesh, too few vertices, a bad face index, an unknown mesh', () => {
    expect(load(geomWith('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>'))).toThrow(/<mesh>: mesh "m": convex hull: all mesh vertices lie in one plane/);
    expect(load(geomWith('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0"/>'))).toThrow(/<mesh>: mesh "m": at least 4 vertices required, got 3/);
    expect(load(geomWith(`<mesh name="m" vertex="${TET}" face="0 1 4"/>`))).toThrow(/in face 0, vertex index 4 does not exist/);
    expect(load(geomWith('<mesh name="other" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>'))).toThrow(/<geom>: unknown mesh "m"/);
  });

  it('maxhullvert is refused', () => {
    expect(load(geomWith(`<mesh name="m" vertex="${TET}" maxhullvert="8"/>`))).toThrow(/<mesh>: unsupported attribute 'maxhullvert'/);
  });
});

describe('URDF mesh collision compiles as in MuJoCo 3.3', () => {
  it('an STL (package:// path, scaled) on the base and an OBJ on a link without <inertial>', async () => {
    const urdf = `<robot name="r">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.1" rpy="0.1 0 0"/><geometry><mesh filename="package://r/meshes/prism.stl" scale="2 1 0.5"/></geometry></collision>
  </link>
  <link name="arm">
    <collision><origin xyz="0.2 0 0" rpy="0 0.3 0.2"/><geometry><mesh filename="wedge.obj"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>`;
    const { ours, ref } = await both(urdf, { 'prism.stl': stlOf(PRISM_V, PRISM_T), 'wedge.obj': PRISM_OBJ }, true);
    // MuJoCo fuses the welded base into the world body: the arm is its body 1, ours 2; geoms keep their order
    const close = (a: ArrayLike<number>, b: ArrayLike<number>, what: string) => {
      expect(a.length, what).toBe(b.length);
      for (let i = 0; i < b.length; i++) expect(Math.abs(a[i]! - b[i]!), `${what}[${i}]`).toBeLessThan(1e-9);
    };
    expect(Array.from(ours.geomType)).toEqual(Array.from(ref.geomType));
    close(ours.geomPos, ref.geomPos, 'geomPos');
    close(ours.geomSize, ref.geomSize, 'geomSize');
    close(ours.geomRbound, ref.geomRbound, 'geomRbound');
    for (let g = 0; g < ref.ngeom; g++) {
      const mat = (m: Model) => quatToMat(Array.from(m.geomQuat.subarray(4 * g, 4 * g + 4)) as Quat);
      close(mat(ours), mat(ref), `geom ${g} rotation`);
    }
    // the arm's mass is the mesh volume at density 1000 (a 0.3 m prism over a 0.015 m^2 triangle: 4.5 kg)
    expect(Math.abs(ours.bodyMass[2]! - ref.bodyMass[1]!)).toBeLessThan(1e-9);
    expect(Math.abs(ours.bodyMass[2]! - 4.5)).toBeLessThan(1e-5);
    close(ours.bodyIpos.subarray(6, 9), ref.bodyIpos.subarray(3, 6), 'arm ipos');
    expect(hullSets(ours)).toEqual(hullSets(ref));
  });

  it('a missing mesh file is refused at the <mesh> element, naming where it looked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-'));
    writeFileSync(join(dir, 'r.urdf'), '<robot name="r"><link name="a">\n<collision><geometry><mesh filename="package://r/none.stl"/></geometry></collision></link></robot>');
    expect(() => loadURDF(join(dir, 'r.urdf'))).toThrow(/r\.urdf:2: <mesh>: mesh file "package:\/\/r\/none\.stl" not found \(looked for .*none\.stl\)/);
  });
});

describe('random convex meshes compile as in MuJoCo 3.3', () => {
  it('24 point clouds (4 to 60 points, random scale, refpos, refquat and inertia mode), one body each', async () => {
    let seed = 11;
    const r = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
    const modes = ['legacy', 'convex', 'exact', 'shell'];
    const assets: string[] = [], bodies: string[] = [];
    for (let k = 0; k < 24; k++) {
      const n = 4 + Math.floor(r() * 57);
      const pts = Array.from({ length: 3 * n }, (_, i) => ((r() - 0.5) * [0.3, 0.2, 0.1][i % 3]!).toFixed(5));
      const q = [r() + 0.5, r() - 0.5, r() - 0.5, r() - 0.5].map((x) => x.toFixed(3)).join(' ');
      assets.push(`<mesh name="m${k}" vertex="${pts.join(' ')}" scale="${(0.5 + r()).toFixed(2)} 1 ${(0.5 + r()).toFixed(2)}" ` +
        `refpos="${(r() * 0.1).toFixed(3)} 0 0" refquat="${q}" inertia="${modes[k % 4]}"/>`);
      bodies.push(`<body pos="${k} 0 1" euler="${(r() * 90).toFixed(1)} 0 ${(r() * 90).toFixed(1)}"><freejoint/><geom type="mesh" mesh="m${k}" pos="0.01 0 0"/></body>`);
    }
    const { ours, ref } = await both(`<mujoco><asset>${assets.join('')}</asset>${world(bodies.join(''))}</mujoco>`);
    expectSame(ours, ref);
  });
});

describe("the convex hull's vertices are qhull's", () => {
  const cylinder: number[] = [];
  for (let k = 0; k < 64; k++) {
    const t = (2 * Math.PI * k) / 64;
    // a middle ring on the side (its points lie on the hull's edges) and the caps' centres (on its faces)
    for (const z of [-0.1, 0, 0.1]) cylinder.push(0.05 * Math.cos(t), 0.05 * Math.sin(t), z);
  }
  cylinder.push(0, 0, -0.1, 0, 0, 0.1);
  const cube: number[] = [];
  for (let i = 0; i <= 6; i++) {
    for (let j = 0; j <= 6; j++) {
      const a = -0.1 + (0.2 * i) / 6, b = -0.1 + (0.2 * j) / 6;
      cube.push(a, b, -0.1, a, b, 0.1, a, -0.1, b, a, 0.1, b, -0.1, a, b, 0.1, a, b);
    }
  }
  const sphere: number[] = [];
  let seed = 5;
  const r = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 - 0.5; };
  for (let i = 0; i < 3000; i++) {
    const x = r(), y = r(), z = r(), l = Math.hypot(x, y, z);
    sphere.push((0.1 * x) / l, (0.1 * y) / l, (0.1 * z) / l);
  }
  for (const [name, pts, corners] of [['a 64-sided cylinder with points on its edges and faces', cylinder, 128], ['a cube with a grid on each face', cube, 8], ['3000 points on a sphere', sphere, 3000]] as const) {
    it(name, async () => {
      const xml = `<mujoco><asset><mesh name="m" vertex="${pts.join(' ')}"/></asset>${world('<body><freejoint/><geom type="mesh" mesh="m"/></body>')}</mujoco>`;
      const { ours, ref } = await both(xml);
      // by position (to 1e-9 m: the moved vertices agree to 1e-17 here): a point given twice is one corner,
      // whichever copy each hull keeps
      const key = (x: number) => String(Math.round(x * 1e9) / 1e9 + 0);
      const at = (m: Model) => [...new Set(hullSets(m)[0]!.map((i) => Array.from(m.meshVert!.subarray(3 * i, 3 * i + 3), key).join(' ')))].sort();
      expect(at(ours)).toEqual(at(ref));
      expect(at(ours).length).toBe(corners);
    });
  }
});
