/** Tiny protobuf encoder for hand-built Perfetto test traces: fields as [number, value] pairs. */
export type Field = [number, number | bigint | string | boolean | Uint8Array | Field[] | { double: number } | { fixed64: bigint }];

function varint(v: bigint): number[] {
  const out: number[] = [];
  let x = BigInt.asUintN(64, v);
  while (x >= 0x80n) { out.push(Number(x & 0x7fn) | 0x80); x >>= 7n; }
  out.push(Number(x));
  return out;
}

export function encode(fields: Field[]): Uint8Array {
  const out: number[] = [];
  for (const [no, v] of fields) {
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') {
      out.push(...varint(BigInt(no << 3)), ...varint(BigInt(typeof v === 'boolean' ? (v ? 1 : 0) : v)));
    } else if (typeof v === 'string' || v instanceof Uint8Array || Array.isArray(v)) {
      const bytes = typeof v === 'string' ? new TextEncoder().encode(v) : v instanceof Uint8Array ? v : encode(v);
      out.push(...varint(BigInt((no << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes);
    } else if ('double' in v) {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, v.double, true);
      out.push(...varint(BigInt((no << 3) | 1)), ...b);
    } else {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, v.fixed64, true);
      out.push(...varint(BigInt((no << 3) | 1)), ...b);
    }
  }
  return Uint8Array.from(out);
}

/** A Trace: each packet as field 1. */
export function trace(packets: Field[][]): Buffer {
  return Buffer.from(encode(packets.map((p) => [1, p] as Field)));
}
