/**
 * Moves a Data into one SharedArrayBuffer so worker threads can step disjoint env ranges of the same state,
 * and rebuilds a Data view of that buffer inside a worker. Works on any Data shape: every typed-array field
 * is placed in the buffer, every other field (numbers, strings, flags) is copied as is.
 */
import type { Data } from '../../data/data.js';

type TypedArray =
  | Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array | Int16Array | Uint16Array
  | Uint8ClampedArray | BigInt64Array | BigUint64Array;

const ctors = {
  Float64Array, Float32Array, Int32Array, Uint32Array, Uint8Array, Int8Array, Int16Array, Uint16Array,
  Uint8ClampedArray, BigInt64Array, BigUint64Array,
} as const;
type CtorName = keyof typeof ctors;
type ViewCtor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => TypedArray;

function view(type: CtorName, buffer: SharedArrayBuffer, byteOffset: number, length: number): TypedArray {
  return new (ctors[type] as unknown as ViewCtor)(buffer, byteOffset, length);
}

export interface SharedFieldLayout {
  readonly key: string;
  readonly type: CtorName;
  readonly byteOffset: number;
  readonly length: number;
}

/** What a worker needs to see the same Data: the buffer, where each array lives, and the plain fields. */
export interface SharedDataLayout {
  readonly buffer: SharedArrayBuffer;
  readonly arrays: SharedFieldLayout[];
  readonly plain: Record<string, unknown>;
}

function isTypedArray(v: unknown): v is TypedArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/**
 * The layout of `d` for workers. makeData already places every array on one SharedArrayBuffer; then nothing
 * is copied. Otherwise every array is copied into a new shared buffer and the returned Data must be used.
 */
export function shareData(d: Data): { data: Data; layout: SharedDataLayout } {
  const inPlace = describeInPlace(d);
  if (inPlace) return { data: d, layout: inPlace };
  const entries = Object.entries(d as unknown as Record<string, unknown>);
  let bytes = 0;
  const placed: { key: string; src: TypedArray; offset: number }[] = [];
  for (const [key, v] of entries) {
    if (!isTypedArray(v)) continue;
    bytes = Math.ceil(bytes / 64) * 64; // cache-line aligned: fields never share a line
    placed.push({ key, src: v, offset: bytes });
    bytes += v.byteLength;
  }
  const buffer = new SharedArrayBuffer(Math.max(bytes, 8));
  const out = Object.create(Object.getPrototypeOf(d)) as Record<string, unknown>;
  const arrays: SharedFieldLayout[] = [];
  const plain: Record<string, unknown> = {};
  for (const [key, v] of entries) {
    if (!isTypedArray(v)) { out[key] = v; plain[key] = v; }
  }
  for (const { key, src, offset } of placed) {
    const type = src.constructor.name as CtorName;
    if (!(type in ctors)) throw new Error(`shareData: field '${key}' has unsupported array type ${type}`);
    const shared = view(type, buffer, offset, src.length);
    (shared as unknown as { set(a: ArrayLike<number | bigint>): void }).set(src as unknown as ArrayLike<number>);
    out[key] = shared;
    arrays.push({ key, type, byteOffset: offset, length: src.length });
  }
  return { data: out as unknown as Data, layout: { buffer, arrays, plain } };
}

function describeInPlace(d: Data): SharedDataLayout | null {
  let buffer: SharedArrayBuffer | null = null;
  const arrays: SharedFieldLayout[] = [];
  const plain: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(d as unknown as Record<string, unknown>)) {
    if (!isTypedArray(v)) { plain[key] = v; continue; }
    if (!(v.buffer instanceof SharedArrayBuffer)) return null;
    if (buffer && v.buffer !== buffer) return null;
    buffer = v.buffer;
    arrays.push({ key, type: v.constructor.name as CtorName, byteOffset: v.byteOffset, length: v.length });
  }
  return buffer ? { buffer, arrays, plain } : null;
}

/** Rebuilds the Data in a worker from a layout received by postMessage. */
export function attachData(layout: SharedDataLayout): Data {
  const out: Record<string, unknown> = { ...layout.plain };
  for (const f of layout.arrays) out[f.key] = view(f.type, layout.buffer, f.byteOffset, f.length);
  return out as unknown as Data;
}
