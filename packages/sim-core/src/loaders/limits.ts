/**
 * Caps on what loading one model may read and allocate, checked before the allocation: a hostile model (a
 * 30000 x 30000 height field, a 26 MB include, 64 meshes of one 16 MB OBJ) is refused in one line naming the
 * file, line and element instead of growing past gigabytes first. The defaults sit far above real robots: the
 * largest MuJoCo Menagerie XML is under 1 MB, its largest meshes are tens of thousands of vertices.
 */
import { readModelBytes } from './xml.js';

export interface ModelLimits {
  /** Bytes of XML read for one model: the model file and all its includes together. */
  xmlBytes: number;
  /** Bytes of asset files (meshes, height fields) read for one model, each file counted once. */
  assetBytes: number;
  /** Samples (nrow x ncol) of one height field. */
  hfieldSamples: number;
  /** Vertices of one mesh. */
  meshVertices: number;
  /** Vertices of all the model's meshes together; a file several meshes share counts once per mesh, as each is
   * compiled (scaled, hulled) on its own. */
  totalMeshVertices: number;
}

export const DEFAULT_MODEL_LIMITS: Readonly<ModelLimits> = {
  xmlBytes: 8 * 1024 * 1024,
  assetBytes: 256 * 1024 * 1024,
  hfieldSamples: 2048 * 2048,
  meshVertices: 200_000,
  totalMeshVertices: 1_000_000,
};

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / 1048576).toFixed(1)} MiB` : `${bytes} bytes`;
}

/** What one model load has used of its limits so far. */
export class ModelBudget {
  readonly limits: ModelLimits;
  private xml = 0;
  private assets = 0;
  private meshVertices = 0;

  constructor(limits: Partial<ModelLimits> = {}) {
    this.limits = { ...DEFAULT_MODEL_LIMITS, ...limits };
  }

  /** An XML file's text; past the limit it throws "<file>: cannot read: ..." before reading. */
  readXml(file: string): string {
    const bytes = readModelBytes(file, this.limits.xmlBytes - this.xml,
      `the ${size(this.limits.xmlBytes)} limit on a model's XML (the model file and its includes together${this.xml > 0 ? `; ${size(this.xml)} read before it` : ''})`);
    this.xml += bytes.length;
    return bytes.toString('utf8');
  }

  /** An asset file's bytes, counted against the asset limit (callers read each file once). */
  readAsset(file: string): Buffer {
    const bytes = readModelBytes(file, this.limits.assetBytes - this.assets,
      `the ${size(this.limits.assetBytes)} limit on a model's mesh and height-field files${this.assets > 0 ? ` (${size(this.assets)} read before it)` : ''}`);
    this.assets += bytes.length;
    return bytes;
  }

  /** Why a height field of nrow x ncol is refused, or null. */
  hfieldRefusal(nrow: number, ncol: number): string | null {
    const n = nrow * ncol;
    return n > this.limits.hfieldSamples
      ? `a ${nrow} x ${ncol} height field has ${n} samples, over the limit of ${this.limits.hfieldSamples}`
      : null;
  }

  /** Takes a mesh of `n` vertices; returns why it is refused, or null. */
  takeMesh(n: number): string | null {
    if (n > this.limits.meshVertices) return `${n} vertices, over the limit of ${this.limits.meshVertices} for one mesh`;
    if (this.meshVertices + n > this.limits.totalMeshVertices) {
      return `the model's meshes would have ${this.meshVertices + n} vertices in all, over the limit of ${this.limits.totalMeshVertices}`;
    }
    this.meshVertices += n;
    return null;
  }
}
