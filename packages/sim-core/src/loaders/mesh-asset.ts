/**
 * MJCF `<mesh>` assets: their attributes and defaults, where their files are (the compiler's meshdir, else
 * assetdir, relative to the main model file as MuJoCo resolves them), and their compilation on first use
 * (mesh-process.ts), once per mesh. A file that several meshes name is read and parsed once, and every mesh's
 * vertices count against the model's limits (limits.ts) before it is compiled. Errors name the `<mesh>` element and, for a file, the file and line.
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { Quat, Vec3 } from '../model/frame-math.js';
import type { Attrs } from './attrs.js';
import type { ModelBudget } from './limits.js';
import { readMeshFile, type MeshData } from './mesh-files.js';
import { MeshError, compileMesh, type CompiledMesh, type MeshInertia } from './mesh-process.js';
import { fail, type XmlElement } from './xml.js';

/** What a `<default><mesh>` sets. */
export interface MeshDefaults { scale: number[]; inertia: MeshInertia }

export function rootMeshDefaults(): MeshDefaults {
  return { scale: [1, 1, 1], inertia: 'legacy' };
}

const INERTIA: Record<string, MeshInertia> = { legacy: 'legacy', convex: 'convex', exact: 'exact', shell: 'shell' };

/** The attributes a default class and a mesh share. */
export function readMeshDefaults(a: Attrs, d: MeshDefaults): void {
  a.into('scale', d.scale);
  d.inertia = a.keyword('inertia', INERTIA) ?? d.inertia;
  const maxhullvert = a.int('maxhullvert');
  if (maxhullvert !== undefined && maxhullvert !== -1) fail(a.el, "unsupported attribute 'maxhullvert' (the hull keeps every vertex)");
}

interface MeshRead {
  el: XmlElement; name: string; file: string | null; vert: number[] | null; face: number[] | null;
  /** The file's format when content_type names it. */
  format: 'obj' | 'stl' | undefined;
  scale: Vec3; refpos: Vec3; refquat: Quat; inertia: MeshInertia;
  compiled: CompiledMesh | null;
}

export class MeshAssets {
  private readonly meshes = new Map<string, MeshRead>();
  /** The compiler's meshdir (or assetdir), relative to the main model file's folder. */
  meshdir = '';
  /** compiler strippath: mesh file names lose their folders. */
  strippath = false;
  /** Meshes some colliding geom uses: only those need the convex hull. */
  readonly needHull = new Set<string>();
  /** Parsed mesh files by resolved path and format: meshes sharing a file share its data (read-only). */
  private readonly files = new Map<string, MeshData>();

  constructor(private readonly modelDir: string, readonly budget: ModelBudget) {}

  /** Reads one `<mesh>` (its defaults already copied into `d`). */
  add(a: Attrs, d: MeshDefaults): void {
    const el = a.el;
    readMeshDefaults(a, d);
    const file = a.str('file') ?? null;
    const vert = a.vector('vertex') ?? null;
    const face = a.vector('face') ?? null;
    const refpos = a.nums('refpos', 3) ?? [0, 0, 0];
    const refquat = a.nums('refquat', 4) ?? [1, 0, 0, 0];
    const contentType = a.str('content_type');
    if (contentType !== undefined && contentType !== 'model/obj' && contentType !== 'model/stl') {
      fail(el, `unsupported content_type "${contentType}" (supported: model/obj, model/stl)`);
    }
    // drawing only
    a.ignore('normal', 'texcoord', 'smoothnormal', 'material');
    if (a.has('builtin') || a.has('plugin')) fail(el, 'unsupported builtin or plugin mesh');
    let name = a.str('name') ?? '';
    if (!name && file) name = basename(file).replace(/\.[^.]*$/, '');
    if (!name) fail(el, 'a mesh without a file needs a name');
    if (this.meshes.has(name)) fail(el, `repeated mesh name "${name}"`);
    if (file !== null && vert !== null) fail(el, 'repeated vertex specification (give file or vertex, not both)');
    if (file === null && vert === null) fail(el, 'a mesh needs a file or vertex data');
    if (face?.some((f) => !Number.isInteger(f))) fail(el, "attribute 'face': vertex indices must be integers");
    this.meshes.set(name, {
      el, name, file, vert: vert ? vert.map(Math.fround) : null, face, compiled: null,
      format: contentType === undefined ? undefined : contentType === 'model/obj' ? 'obj' : 'stl',
      scale: [d.scale[0]!, d.scale[1]!, d.scale[2]!], refpos: refpos as Vec3, refquat: refquat as Quat, inertia: d.inertia,
    });
  }

  has(name: string): boolean {
    return this.meshes.has(name);
  }

  /** The compiled mesh `name` for the geom `geomEl` (which the error names when there is no such mesh). */
  get(geomEl: XmlElement, name: string): CompiledMesh {
    const m = this.meshes.get(name);
    if (!m) fail(geomEl, `unknown mesh "${name}"`);
    if (!m.compiled) m.compiled = this.compile(m);
    return m.compiled;
  }

  private compile(m: MeshRead): CompiledMesh {
    let data: MeshData;
    if (m.file !== null) {
      const rel = this.strippath ? basename(m.file) : m.file;
      const path = isAbsolute(rel) ? rel : resolve(this.modelDir, this.meshdir, rel);
      const key = `${path}\0${m.format ?? ''}`;
      let cached = this.files.get(key);
      if (!cached) {
        try {
          cached = readMeshFile(path, m.format, (f) => this.budget.readAsset(f));
        } catch (e) {
          fail(m.el, `cannot load mesh file "${m.file}": ${(e as Error).message}`);
        }
        this.files.set(key, cached);
      }
      data = cached;
      if (m.face) fail(m.el, 'repeated face specification (the file has faces)');
    } else {
      data = { vert: m.vert!, face: m.face ?? [] };
    }
    const refusal = this.budget.takeMesh(data.vert.length / 3);
    if (refusal) fail(m.el, `mesh "${m.name}": ${refusal}`);
    try {
      return compileMesh({
        name: m.name, vert: data.vert, face: data.face, scale: m.scale, refpos: m.refpos, refquat: m.refquat,
        inertia: m.inertia, needHull: this.needHull.has(m.name),
      });
    } catch (e) {
      if (e instanceof MeshError) fail(m.el, `mesh "${m.name}": ${e.message}`);
      throw e;
    }
  }
}

export function meshAssetsFor(modelFile: string, budget: ModelBudget): MeshAssets {
  return new MeshAssets(dirname(resolve(modelFile)), budget);
}
