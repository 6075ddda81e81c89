/**
 * A small protobuf wire-format reader over one buffer range. 64-bit varints are kept as two uint32 halves
 * (`lo`, `hi`) so timestamps and uuids stay exact; `number()` gives the value as a double when that is enough.
 */

export class ProtoError extends Error {
  constructor(readonly pos: number, message: string) { super(message); }
}

const TWO_32 = 4294967296;
const utf8 = new TextDecoder('utf-8');

export class ProtoReader {
  pos: number;
  /** Field number and wire type of the last tag read by `next()`. */
  field = 0;
  wire = 0;
  /** Halves of the last varint or fixed64 read. */
  lo = 0;
  hi = 0;

  constructor(readonly buf: Uint8Array, start: number, readonly end: number) {
    this.pos = start;
  }

  /** Reads the next tag; false at the end of the range. */
  next(): boolean {
    if (this.pos >= this.end) return false;
    const at = this.pos;
    this.readVarint();
    if (this.hi !== 0 || this.lo === 0) throw new ProtoError(at, 'invalid field tag');
    this.field = this.lo >>> 3;
    this.wire = this.lo & 7;
    if (this.wire > 5 || this.wire === 3 || this.wire === 4) throw new ProtoError(at, `unsupported wire type ${this.wire}`);
    return true;
  }

  readVarint(): void {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtoError(this.pos, 'truncated varint');
      const b = buf[this.pos++]!;
      const v = b & 0x7f;
      if (i < 4) lo |= v << (7 * i);
      else if (i === 4) { lo |= (v & 0x0f) << 28; hi |= v >>> 4; }
      else hi |= v << (7 * i - 32);
      if ((b & 0x80) === 0) { this.lo = lo >>> 0; this.hi = hi >>> 0; return; }
    }
    throw new ProtoError(this.pos, 'varint longer than 10 bytes');
  }

  /** Unsigned value of the last varint/fixed64 as a double (exact below 2^53). */
  number(): number { return this.hi * TWO_32 + this.lo; }
  /** Signed (two's complement int64) value of the last varint/fixed64 as a double. */
  signed(): number {
    if (this.hi & 0x80000000) return -((~this.hi >>> 0) * TWO_32 + (~this.lo >>> 0) + 1);
    return this.hi * TWO_32 + this.lo;
  }
  bigint(): bigint { return (BigInt(this.hi) << 32n) | BigInt(this.lo); }
  /** A map key for a uint64 id: a number when exact, else a string. */
  key(): number | string { return this.hi < 0x200000 ? this.number() : `${this.hi}:${this.lo}`; }

  varint(): number { this.readVarint(); return this.number(); }

  fixed64(): void {
    if (this.pos + 8 > this.end) throw new ProtoError(this.pos, 'truncated fixed64');
    const b = this.buf;
    const p = this.pos;
    this.lo = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
    this.hi = (b[p + 4]! | (b[p + 5]! << 8) | (b[p + 6]! << 16) | (b[p + 7]! << 24)) >>> 0;
    this.pos += 8;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtoError(this.pos, 'truncated double');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  /** Length of a length-delimited field; leaves pos at its first byte. */
  length(): number {
    const at = this.pos;
    this.readVarint();
    const n = this.number();
    if (this.pos + n > this.end) throw new ProtoError(at, `length ${n} runs past the end of its message`);
    return n;
  }

  /**
   * A sub-reader over the next length-delimited field; advances past it. A field of another wire type where a
   * message belongs (TracePacket field 1 written as a varint) is skipped and reads as an empty message, as
   * protobuf's own decoders (and trace_processor) take it.
   */
  sub(): ProtoReader {
    if (this.wire !== 2) {
      this.skip();
      return new ProtoReader(this.buf, this.pos, this.pos);
    }
    const n = this.length();
    const r = new ProtoReader(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }

  /** A length-delimited field as UTF-8; a field of another wire type is skipped and reads as '' (see sub). */
  string(): string {
    if (this.wire !== 2) {
      this.skip();
      return '';
    }
    const n = this.length();
    const s = utf8.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  /** Reads a scalar varint/fixed64 field value; for packed repeated fields call `packed`. */
  skip(): void {
    switch (this.wire) {
      case 0: this.readVarint(); break;
      case 1: if (this.pos + 8 > this.end) throw new ProtoError(this.pos, 'truncated fixed64'); this.pos += 8; break;
      case 2: { const n = this.length(); this.pos += n; break; }
      case 5: if (this.pos + 4 > this.end) throw new ProtoError(this.pos, 'truncated fixed32'); this.pos += 4; break;
      default: throw new ProtoError(this.pos, `unsupported wire type ${this.wire}`);
    }
  }

  /**
   * Values of a repeated 64-bit field, packed or not: calls `each` with the reader positioned so that
   * lo/hi hold the value. `fixed` selects fixed64 (else varint) encoding.
   */
  repeated(fixed: boolean, each: () => void): void {
    if (this.wire === 2) {
      const n = this.length();
      const end = this.pos + n;
      while (this.pos < end) { if (fixed) this.fixed64(); else this.readVarint(); each(); }
      if (this.pos !== end) throw new ProtoError(this.pos, 'packed field overruns its length');
    } else if (fixed && this.wire === 1) { this.fixed64(); each(); }
    else if (!fixed && this.wire === 0) { this.readVarint(); each(); }
    else if (fixed && this.wire === 0) { this.readVarint(); each(); }
    else throw new ProtoError(this.pos, `wire type ${this.wire} where a number was expected`);
  }
}
