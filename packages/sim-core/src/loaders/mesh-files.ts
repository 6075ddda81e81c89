/**
 * Mesh files as MuJoCo reads them: Wavefront OBJ and STL (binary, and ASCII, which MuJoCo itself refuses) to
 * a vertex list and a triangle list. Coordinates are rounded to float32 as MuJoCo stores them on reading
 * (its OBJ reader and STL records are single precision); every later step works in double. Malformed input
 * throws a MeshFileError naming the file and, for text formats, the line.
 */
import { readModelBytes } from './xml.js';

export interface MeshData {
  /** x, y, z per vertex, float32-rounded. */
  vert: number[];
  /** Three vertex indices per triangle; empty when the source gave none. */
  face: number[];
}

export class MeshFileError extends Error {
  constructor(readonly file: string, readonly line: number, why: string) {
    super(line > 0 ? `${file}:${line}: ${why}` : `${file}: ${why}`);
    this.name = 'MeshFileError';
  }
}

/** MuJoCo's bound on an STL's triangle count. */
const MAX_STL_FACES = 200000;
/** STL vertices must fit MuJoCo's integer vertex hashing. */
const MAX_STL_COORD = 2 ** 30;

/**
 * Reads an OBJ or STL file: the format is `type` when given (MJCF content_type), else the file's extension, as
 * MuJoCo picks its reader. `read` reads the bytes (a ModelBudget's counts them against the model's limit).
 */
export function readMeshFile(file: string, type?: 'obj' | 'stl', read: (file: string) => Buffer = readModelBytes): MeshData {
  const ext = type ?? file.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext !== 'obj' && ext !== 'stl') throw new MeshFileError(file, 0, 'unsupported mesh file type (supported: .obj, .stl)');
  let bytes: Buffer;
  try {
    bytes = read(file);
  } catch (e) {
    throw new MeshFileError(file, 0, (e as Error).message.replace(`${file}: `, ''));
  }
  return ext === 'obj' ? parseObj(bytes.toString('utf8'), file) : parseStl(bytes, file);
}

function finiteCoord(file: string, line: number, text: string): number {
  const v = Number(text);
  if (text === undefined || text === '' || !Number.isFinite(v)) throw new MeshFileError(file, line, `vertex coordinate "${text ?? ''}" is not a finite number`);
  return Math.fround(v);
}

/**
 * OBJ: `v` lines give vertices, `f` lines polygons (v, v/vt, v/vt/vn, v//vn; negative indices count back
 * from the last vertex). As MuJoCo, only the first object's faces are kept (a `g`/`o` line after faces starts
 * the next one) while all vertices are; polygons are split into a fan of triangles.
 */
export function parseObj(text: string, file: string): MeshData {
  const vert: number[] = [];
  const face: number[] = [];
  let shapeDone = false;
  let facesInShape = 0;
  const lines = text.split(/\r?\n/);
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    const tag = parts[0]!;
    const at = ln + 1;
    if (tag === 'v') {
      if (parts.length < 4) throw new MeshFileError(file, at, `a vertex needs 3 coordinates, got ${parts.length - 1}`);
      for (let k = 1; k <= 3; k++) vert.push(finiteCoord(file, at, parts[k]!));
    } else if (tag === 'f') {
      if (parts.length < 4) throw new MeshFileError(file, at, `a face needs at least 3 vertices, got ${parts.length - 1}`);
      const nv = vert.length / 3;
      const idx = parts.slice(1).map((p) => {
        const s = p.split('/')[0]!;
        const i = Number(s);
        if (!Number.isInteger(i) || i === 0) throw new MeshFileError(file, at, `bad vertex index "${p}"`);
        const k = i > 0 ? i - 1 : nv + i;
        if (k < 0 || k >= nv) throw new MeshFileError(file, at, `vertex index ${i} does not exist (${nv} vertices so far)`);
        return k;
      });
      facesInShape++;
      if (shapeDone) continue;
      for (let k = 1; k + 1 < idx.length; k++) face.push(idx[0]!, idx[k]!, idx[k + 1]!);
    } else if (tag === 'g' || tag === 'o') {
      if (facesInShape > 0) shapeDone = true;
    }
    // vt, vn, s, usemtl, mtllib, l and others carry nothing the physics uses
  }
  if (vert.length === 0) throw new MeshFileError(file, 0, 'no vertices (v lines)');
  return { vert, face };
}

/** STL, binary (80-byte header, count, 50-byte records) or ASCII (solid ... facet ... vertex x y z ...). */
export function parseStl(bytes: Buffer, file: string): MeshData {
  if (bytes.length === 0) throw new MeshFileError(file, 0, 'empty STL file');
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, 512));
  const binaryFits = bytes.length >= 84 && bytes.readUInt32LE(80) * 50 + 84 === bytes.length;
  // a binary header may itself start with "solid": the size decides first
  if (!binaryFits && /^\s*solid\b/.test(head)) return parseStlAscii(bytes.toString('latin1'), file);
  if (bytes.length < 84) throw new MeshFileError(file, 0, `invalid STL header (${bytes.length} bytes, a binary STL has at least 84)`);
  const nfaces = bytes.readUInt32LE(80);
  if (nfaces < 1 || nfaces > MAX_STL_FACES) throw new MeshFileError(file, 0, `binary STL with ${nfaces} triangles (1 to ${MAX_STL_FACES} allowed)`);
  if (!binaryFits) throw new MeshFileError(file, 0, `binary STL of ${nfaces} triangles must be ${nfaces * 50 + 84} bytes, is ${bytes.length}`);
  const raw: number[] = [];
  for (let i = 0; i < nfaces; i++) {
    for (let j = 0; j < 3; j++) {
      for (let k = 0; k < 3; k++) {
        const v = bytes.readFloatLE(84 + 50 * i + 12 * (j + 1) + 4 * k);
        if (!Number.isFinite(v) || Math.abs(v) > MAX_STL_COORD) throw new MeshFileError(file, 0, `triangle ${i}: vertex coordinate ${v} is not finite or exceeds 2^30`);
        raw.push(v);
      }
    }
  }
  return dedupe(raw);
}

function parseStlAscii(text: string, file: string): MeshData {
  const raw: number[] = [];
  const lines = text.split(/\r?\n/);
  let inLoop = 0;
  for (let ln = 0; ln < lines.length; ln++) {
    const parts = lines[ln]!.trim().split(/\s+/);
    const at = ln + 1;
    switch (parts[0]) {
      case 'vertex':
        if (parts.length !== 4) throw new MeshFileError(file, at, `a vertex needs 3 coordinates, got ${parts.length - 1}`);
        for (let k = 1; k <= 3; k++) {
          const v = finiteCoord(file, at, parts[k]!);
          if (Math.abs(v) > MAX_STL_COORD) throw new MeshFileError(file, at, `vertex coordinate ${v} exceeds 2^30`);
          raw.push(v);
        }
        inLoop++;
        break;
      case 'outer':
        inLoop = 0;
        break;
      case 'endloop':
        if (inLoop !== 3) throw new MeshFileError(file, at, `a facet needs 3 vertices, got ${inLoop}`);
        break;
      case 'solid': case 'facet': case 'endfacet': case 'endsolid': case '':
        break;
      default:
        throw new MeshFileError(file, at, `unexpected "${parts[0]}" in an ASCII STL`);
    }
  }
  if (raw.length === 0) throw new MeshFileError(file, 0, 'ASCII STL without facets');
  if (raw.length / 3 > 3 * MAX_STL_FACES) throw new MeshFileError(file, 0, `more than ${MAX_STL_FACES} triangles`);
  return dedupe(raw);
}

/** STL repeats each vertex per triangle: merge equal ones (first occurrence keeps its place), as MuJoCo does. */
function dedupe(raw: number[]): MeshData {
  const index = new Map<string, number>();
  const vert: number[] = [];
  const face: number[] = [];
  for (let i = 0; i < raw.length; i += 3) {
    const key = `${raw[i]},${raw[i + 1]},${raw[i + 2]}`;
    let k = index.get(key);
    if (k === undefined) {
      k = vert.length / 3;
      index.set(key, k);
      vert.push(raw[i]!, raw[i + 1]!, raw[i + 2]!);
    }
    face.push(k);
  }
  return { vert, face };
}
