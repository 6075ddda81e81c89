/**
 * URDF `<collision><geometry><mesh filename=... scale=...>`: the file (OBJ or STL) found as MuJoCo's URDF import
 * finds it, compiled once per file and scale as an MJCF mesh asset with default attributes, and the mesh geom
 * placed at its mesh's inertial frame. `package://pkg/path` is looked up as path under the URDF's folder, then,
 * as MuJoCo strips paths from URDF mesh names, as the bare file name there.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { GeomSpec } from '../model/builder.js';
import { composePose, type Quat, type Vec3 } from '../model/frame-math.js';
import { GeomType } from '../model/model.js';
import { Attrs } from './attrs.js';
import type { ModelBudget } from './limits.js';
import { readMeshFile, type MeshData } from './mesh-files.js';
import { MeshError, compileMesh, meshGeomSize, type CompiledMesh } from './mesh-process.js';
import { fail, type XmlElement } from './xml.js';

/** Meshes of one URDF: compiled by resolved path and scale (links sharing a file and scale share its mesh), files
 * parsed by path (read once whatever the scales), and the model's limits, which every compiled mesh counts against. */
export interface UrdfMeshes {
  compiled: Map<string, CompiledMesh>;
  files: Map<string, MeshData>;
  budget: ModelBudget;
}

export function urdfMeshes(budget: ModelBudget): UrdfMeshes {
  return { compiled: new Map(), files: new Map(), budget };
}

export function urdfMesh(shape: XmlElement, pos: Vec3, quat: Quat, meshes: UrdfMeshes): Pick<GeomSpec, 'type' | 'size' | 'rbound' | 'pos' | 'quat' | 'mesh'> {
  const a = new Attrs(shape);
  const filename = a.requiredStr('filename');
  const scale = a.nums('scale', 3) ?? [1, 1, 1];
  a.done();
  const dir = dirname(shape.file);
  const rel = filename.replace(/^file:\/\//, '');
  const pkg = rel.match(/^package:\/\/[^/]+\/(.*)$/);
  const candidates = pkg ? [resolve(dir, pkg[1]!), resolve(dir, basename(pkg[1]!))] : [isAbsolute(rel) ? rel : resolve(dir, rel), resolve(dir, basename(rel))];
  const path = candidates.find((c) => existsSync(c));
  if (!path) fail(shape, `mesh file "${filename}" not found (looked for ${[...new Set(candidates)].join(', ')})`);
  const key = `${path} ${scale.join(' ')}`;
  let mesh = meshes.compiled.get(key);
  if (!mesh) {
    let data = meshes.files.get(path);
    if (!data) {
      try {
        data = readMeshFile(path, undefined, (f) => meshes.budget.readAsset(f));
      } catch (e) {
        fail(shape, `cannot load mesh file "${filename}": ${(e as Error).message}`);
      }
      meshes.files.set(path, data);
    }
    const refusal = meshes.budget.takeMesh(data.vert.length / 3);
    if (refusal) fail(shape, `mesh "${filename}": ${refusal}`);
    try {
      mesh = compileMesh({
        name: basename(path).replace(/\.[^.]*$/, ''), vert: data.vert, face: data.face, scale: [scale[0]!, scale[1]!, scale[2]!],
        refpos: [0, 0, 0], refquat: [1, 0, 0, 0], inertia: 'legacy', needHull: true,
      });
    } catch (e) {
      if (e instanceof MeshError) fail(shape, `mesh "${filename}": ${e.message}`);
      throw e;
    }
    meshes.compiled.set(key, mesh);
  }
  const frame = composePose(pos, quat, mesh.pos, mesh.quat);
  const size = meshGeomSize(mesh);
  return { type: GeomType.Mesh, size, rbound: Math.hypot(size[0], size[1], size[2]), pos: frame.pos, quat: frame.quat, mesh };
}
