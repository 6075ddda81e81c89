/**
 * Genesis' index and value conventions for batched reads and writes:
 * - envsIdx: undefined (all envs), an int, a list, a typed array, a gs.Tensor, or a bool mask (a list of
 *   booleans or a bool tensor). Unlike Genesis, every index is bounds-checked.
 * - dofsIdx (entity-local): undefined (all), an int, a list, a typed array or a tensor.
 * - values: ([len(envs_idx),] len(dofs_idx)); a (len(dofs_idx),) value broadcasts to every selected env.
 *   A bare typed array (it has no shape) may also hold len(envs_idx) * len(dofs_idx) values, row-major.
 *   An int index drops its dimension, as indexing a tensor with an int does.
 * Error messages follow Genesis' forms.
 */
import type { ValueBlock } from '../backend/backend.js';
import { flattenNested, formatShape, Tensor, type NestedNumbers } from './tensor.js';

export type IndexInput = number | readonly number[] | readonly boolean[] | ArrayLike<number> | Tensor;
export type ValueInput = number | NestedNumbers | ArrayLike<number> | Tensor;

export interface Selection {
  readonly idx: Int32Array;
  /** True when the user passed a single int: the dimension is dropped from reads and expected values. */
  readonly scalar: boolean;
}

export const NOT_PARALLELIZED = '`envs_idx` is not supported for non-parallelized scene.';

function fromValues(values: ArrayLike<number>, n: number, name: string, what: string): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v)) throw new Error(`\`${name}\` must hold integers, got ${v}.`);
    if (v < 0 || v >= n) throw new Error(`\`${name}\` contains ${v}, out of range for ${what}=${n}.`);
    out[i] = v;
  }
  return out;
}

function fromMask(mask: ArrayLike<number | boolean>, n: number, name: string, what: string): Int32Array {
  if (mask.length !== n) {
    throw new Error(`\`${name}\` is a bool mask of length ${mask.length}, expecting ${what}=${n}.`);
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (mask[i]) out.push(i);
  return Int32Array.from(out);
}

/** Parses an index argument against `n` items (`what` names n in messages, e.g. 'n_envs'). */
export function parseIndex(input: IndexInput | undefined | null, n: number, name: string, what: string): Selection {
  if (input === undefined || input === null) {
    const all = new Int32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    return { idx: all, scalar: false };
  }
  if (typeof input === 'number') return { idx: fromValues([input], n, name, what), scalar: true };
  if (input instanceof Tensor) {
    if (input.ndim > 1) throw new Error(`\`${name}\` must be a 1D tensor, got shape ${formatShape(input.shape)}.`);
    if (input.dtype === 'bool') return { idx: fromMask(input.data, n, name, what), scalar: false };
    return { idx: fromValues(input.data, n, name, what), scalar: input.ndim === 0 };
  }
  if (Array.isArray(input)) {
    if (input.length > 0 && input.every((v) => typeof v === 'boolean')) {
      return { idx: fromMask(input as boolean[], n, name, what), scalar: false };
    }
    for (const v of input) {
      if (typeof v !== 'number') throw new Error(`\`${name}\` must be a list of ints or a bool mask, got ${JSON.stringify(v)}.`);
    }
    return { idx: fromValues(input as number[], n, name, what), scalar: false };
  }
  if (ArrayBuffer.isView(input)) return { idx: fromValues(input as ArrayLike<number>, n, name, what), scalar: false };
  throw new Error(`\`${name}\` must be an int, a list, a typed array, a tensor or a bool mask.`);
}

/** envsIdx for a scene with `nEnvs` (0 = unbatched: any envsIdx is an error, and env 0 is selected). */
export function parseEnvsIdx(input: IndexInput | undefined | null, nEnvs: number): Selection {
  if (nEnvs === 0) {
    if (input !== undefined && input !== null) throw new Error(NOT_PARALLELIZED);
    return { idx: Int32Array.of(0), scalar: true };
  }
  return parseIndex(input, nEnvs, 'envs_idx', 'n_envs');
}

/** Shape and flat values of a value argument. */
export function valueShape(value: ValueInput): { shape: number[]; data: ArrayLike<number> } {
  if (value instanceof Tensor) return { shape: [...value.shape], data: value.data };
  if (typeof value === 'number') return { shape: [], data: [value] };
  if (ArrayBuffer.isView(value)) return { shape: [(value as ArrayLike<number>).length], data: value as ArrayLike<number> };
  if (Array.isArray(value)) {
    const flat = flattenNested(value as NestedNumbers);
    return { shape: flat.shape, data: flat.values };
  }
  throw new Error('Invalid input: expecting a gs.Tensor, a typed array, nested arrays or a number.');
}

/**
 * Checks a value against the selection and returns it as a ValueBlock of rows x idx.length.
 * `idxName` is the index the second dimension runs over ('dofs_idx', 'qs_idx').
 */
export function shapeValues(value: ValueInput, envs: Selection, idx: Selection, idxName: string): ValueBlock {
  const { shape, data } = valueShape(value);
  for (let i = 0; i < data.length; i++) {
    if (typeof data[i] !== 'number') throw new Error(`Invalid input: values must be numbers, got ${String(data[i])}.`);
  }
  const w = idx.idx.length;
  const nE = envs.idx.length;
  const dims: { len: number; name: string }[] = [];
  if (!envs.scalar) dims.push({ len: nE, name: 'envs_idx' });
  if (!idx.scalar) dims.push({ len: w, name: idxName });

  // A scalar value applies to every selected element.
  if (shape.length === 0) return { data: new Array<number>(w).fill(data[0]!), rows: 1 };

  // Messages number the index dimensions as Genesis does: 0 is envs_idx, 1 is the dof/q index (also when
  // the env dimension is absent, on an unbatched scene).
  const idxMismatch = (): Error =>
    new Error(`Invalid shape: ${formatShape(shape)}. Expecting 1D tensor of length ${w} for 1-th index \`${idxName}\`.`);
  if (shape.length === dims.length) {
    for (let d = 0; d < dims.length; d++) {
      if (shape[d] === dims[d]!.len) continue;
      if (dims[d]!.name === 'envs_idx') {
        throw new Error(`Invalid input shape: ${formatShape(shape)}. Dimension 0 consistent with len(envs_idx)=${nE}.`);
      }
      throw idxMismatch();
    }
    return { data, rows: envs.scalar ? 1 : nE, source: value instanceof Tensor ? value : undefined };
  }
  if (!envs.scalar && !idx.scalar && shape.length === 1) {
    // A bare typed array has no shape: len(envs_idx) * len(idx) values are read row-major.
    if (ArrayBuffer.isView(value) && nE > 1 && shape[0] === nE * w) return { data, rows: nE };
    // (len(idx),) broadcast to every selected env.
    if (shape[0] !== w) throw idxMismatch();
    return { data, rows: 1, source: value instanceof Tensor ? value : undefined };
  }
  if (envs.scalar && !idx.scalar) throw idxMismatch();
  const expected = dims.map((d) => `len(${d.name})=${d.len}`).join(', ');
  throw new Error(`Invalid input shape: ${formatShape(shape)}. Expecting ${dims.length}D tensor (${expected}).`);
}

/** The shape of a read for this selection. */
export function readShape(envs: Selection, idx: Selection): number[] {
  const shape: number[] = [];
  if (!envs.scalar) shape.push(envs.idx.length);
  if (!idx.scalar) shape.push(idx.idx.length);
  return shape;
}
