/**
 * gs.Tensor: a shaped, typed host array, the value type of every batched read and write (Genesis returns
 * torch tensors; this is the smallest thing that carries a shape). `data` is row-major.
 * A backend with device memory (WebGPU) may subclass it to keep the values on the device.
 */
import type { DeviceDescription } from '../backend/backend.js';

export type DType = 'float32' | 'float64' | 'int32' | 'bool';
export type TensorData = Float32Array | Float64Array | Int32Array | Uint8Array;
export type NestedNumbers = number | boolean | readonly NestedNumbers[];

export class Tensor {
  readonly shape: readonly number[];
  readonly data: TensorData;
  readonly dtype: DType;
  readonly device: DeviceDescription | null;

  constructor(data: TensorData, shape: readonly number[], dtype?: DType, device: DeviceDescription | null = null) {
    const size = shape.reduce((a, b) => a * b, 1);
    if (size !== data.length) {
      throw new Error(`Tensor data has ${data.length} elements, shape ${formatShape(shape)} needs ${size}`);
    }
    this.data = data;
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype ?? dtypeOf(data);
    this.device = device;
  }

  get ndim(): number {
    return this.shape.length;
  }

  get size(): number {
    return this.data.length;
  }

  /** Nested arrays (booleans for a bool tensor); a 0-d tensor gives its number. */
  toArray(): NestedNumbers {
    const bool = this.dtype === 'bool';
    const build = (dim: number, offset: number): NestedNumbers => {
      if (dim === this.shape.length) return bool ? this.data[offset] !== 0 : this.data[offset]!;
      const n = this.shape[dim]!;
      const stride = this.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
      const out: NestedNumbers[] = [];
      for (let i = 0; i < n; i++) out.push(build(dim + 1, offset + i * stride));
      return out;
    };
    return build(0, 0);
  }

  toString(): string {
    return `Tensor(shape=${formatShape(this.shape)}, dtype=${this.dtype})`;
  }
}

/** Python's tuple form, as Genesis prints shapes: (5, 9), (3,), (). */
export function formatShape(shape: readonly number[]): string {
  if (shape.length === 1) return `(${shape[0]},)`;
  return `(${shape.join(', ')})`;
}

function dtypeOf(data: TensorData): DType {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof Int32Array) return 'int32';
  return 'bool';
}

function allocate(dtype: DType, n: number): TensorData {
  switch (dtype) {
    case 'float32': return new Float32Array(n);
    case 'float64': return new Float64Array(n);
    case 'int32': return new Int32Array(n);
    case 'bool': return new Uint8Array(n);
  }
}

/** Shape and flat values of nested arrays; throws on ragged input or non-numbers. */
export function flattenNested(value: NestedNumbers): { shape: number[]; values: number[]; allBool: boolean } {
  const shape: number[] = [];
  for (let v: NestedNumbers = value; Array.isArray(v); v = (v as readonly NestedNumbers[])[0]!) {
    shape.push(v.length);
    if (v.length === 0) break;
  }
  const values: number[] = [];
  let allBool = true;
  let anyScalar = false;
  const walk = (v: NestedNumbers, dim: number): void => {
    if (dim === shape.length) {
      if (typeof v === 'boolean') { values.push(v ? 1 : 0); anyScalar = true; return; }
      if (typeof v === 'number') { values.push(v); allBool = false; anyScalar = true; return; }
      throw new Error(`Invalid tensor data: nested arrays are ragged (expected shape ${formatShape(shape)})`);
    }
    if (!Array.isArray(v) || v.length !== shape[dim]) {
      throw new Error(`Invalid tensor data: nested arrays are ragged (expected shape ${formatShape(shape)})`);
    }
    for (const x of v) walk(x, dim + 1);
  };
  walk(value, 0);
  return { shape, values, allBool: allBool && anyScalar };
}

export interface TensorOptions {
  /** Where the tensor lives; the CPU backend keeps every tensor on the host. */
  readonly device?: DeviceDescription | null;
  readonly dtype?: DType;
  /** Shape of flat data (a typed array or a flat list); the default is 1-D. */
  readonly shape?: readonly number[];
}

let defaultFloat: 'float32' | 'float64' = 'float32';

/** Called by gs.init: default float dtype follows the precision, as Genesis' gs.tc_float does. */
export function setDefaultFloat(dtype: 'float32' | 'float64'): void {
  defaultFloat = dtype;
}

/** gs.tensor(data, { device, dtype, shape }): a number, nested arrays, a typed array or another Tensor. */
export function tensor(data: NestedNumbers | ArrayLike<number> | Tensor, options: TensorOptions = {}): Tensor {
  let shape: number[];
  let values: ArrayLike<number>;
  let dtype = options.dtype;
  if (data instanceof Tensor) {
    shape = [...data.shape];
    values = data.data;
    dtype ??= data.dtype;
  } else if (ArrayBuffer.isView(data)) {
    values = data as ArrayLike<number>;
    shape = [values.length];
    if (!dtype && (data instanceof Float32Array || data instanceof Float64Array || data instanceof Int32Array)) {
      dtype = dtypeOf(data);
    }
  } else {
    const flat = flattenNested(data as NestedNumbers);
    shape = flat.shape;
    values = flat.values;
    if (!dtype && flat.allBool) dtype = 'bool';
  }
  if (options.shape) {
    const size = options.shape.reduce((a, b) => a * b, 1);
    if (size !== values.length) {
      throw new Error(`Cannot view ${values.length} values as shape ${formatShape(options.shape)}`);
    }
    shape = [...options.shape];
  }
  const out = allocate(dtype ?? defaultFloat, values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!;
  return new Tensor(out, shape, dtype ?? defaultFloat, options.device ?? null);
}

/** gs.tile(t, reps): torch.tile semantics (reps shorter than ndim are padded with leading 1s, and vice versa). */
export function tile(t: Tensor | NestedNumbers | ArrayLike<number>, reps: number | readonly number[]): Tensor {
  const src = t instanceof Tensor ? t : tensor(t);
  const r = typeof reps === 'number' ? [reps] : [...reps];
  for (const k of r) if (!Number.isInteger(k) || k < 0) throw new Error(`tile: repetitions must be non-negative integers, got ${formatShape(r)}`);
  const ndim = Math.max(src.ndim, r.length);
  const inShape = [...Array(ndim - src.ndim).fill(1), ...src.shape];
  const rr = [...Array(ndim - r.length).fill(1), ...r];
  const outShape = inShape.map((n, i) => n * rr[i]!);
  const size = outShape.reduce((a, b) => a * b, 1);
  const out = allocate(src.dtype, size);
  const inStrides = strides(inShape);
  const outStrides = strides(outShape);
  for (let flat = 0; flat < size; flat++) {
    let rem = flat;
    let srcIndex = 0;
    for (let d = 0; d < ndim; d++) {
      const coord = Math.floor(rem / outStrides[d]!);
      rem -= coord * outStrides[d]!;
      srcIndex += (coord % inShape[d]!) * inStrides[d]!;
    }
    out[flat] = src.data[srcIndex]!;
  }
  return new Tensor(out, outShape, src.dtype, src.device);
}

/** gs.zeros(shape): a tensor of zeros in the default float dtype. */
export function zeros(shape: readonly number[], options: { dtype?: DType; device?: DeviceDescription | null } = {}): Tensor {
  const dtype = options.dtype ?? defaultFloat;
  return new Tensor(allocate(dtype, shape.reduce((a, b) => a * b, 1)), shape, dtype, options.device ?? null);
}

function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) { s[d] = acc; acc *= shape[d]!; }
  return s;
}
