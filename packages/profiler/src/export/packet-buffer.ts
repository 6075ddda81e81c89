// A hand-written protobuf encoder for the hot path of the Perfetto writer: TrackEvent packets written
// straight into a reused byte buffer, with no per-packet objects. It writes fields in field-number order,
// as protobufjs does, so its bytes match protobufjs's for the same packet (tested in
// test/export/packet-buffer.test.ts, which decodes them with protobufjs). Kept only because the exporter
// benchmark (bench/profiler.ts) shows the Perfetto writer 2.2-3.3x faster with it than with protobufjs's
// object-based encode (docs/benchmarks.md, exporters).

import { ByteBatch } from './byte-batch.js';

const TWO_32 = 4294967296;

export class PacketBuffer extends ByteBatch {
  private view: DataView;

  constructor(capacity = 512 * 1024) {
    super(capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  protected override useBuffer(b: Buffer): void {
    this.buf = b;
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  /** A varint of a non-negative integer below 2^53 (tags, lengths, iids, uuids). */
  varint(v: number): void {
    // Most varints are one-byte tags and small iids: a path short enough to be inlined.
    if (v < 128 && this.pos < this.buf.length) { this.buf[this.pos++] = v; return; }
    this.varintSlow(v);
  }

  private varintSlow(v: number): void {
    this.ensure(10);
    const b = this.buf;
    let p = this.pos;
    if (v < 128) {
      b[p++] = v;
    } else if (v < TWO_32) {
      let x = v >>> 0;
      while (x > 127) { b[p++] = (x & 0x7f) | 0x80; x >>>= 7; }
      b[p++] = x;
    } else {
      p = writeVarint64(b, p, v % TWO_32 >>> 0, Math.floor(v / TWO_32) >>> 0);
    }
    this.pos = p;
  }

  /** A varint of a 64-bit value given as two 32-bit halves. */
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    this.pos = writeVarint64(this.buf, this.pos, lo >>> 0, hi >>> 0);
  }

  /** int64 varint: negatives as 64-bit two's complement (10 bytes), as protobuf requires. */
  int64(v: number): void {
    if (v >= 0) { this.varint(v); return; }
    const m = -v;
    let lo = m % TWO_32 >>> 0, hi = Math.floor(m / TWO_32) >>> 0;
    lo = (~lo + 1) >>> 0;
    hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    this.varint64(lo, hi);
  }

  /** fixed64 of a non-negative integer below 2^53, little-endian. */
  fixed64(v: number): void {
    this.ensure(8);
    this.view.setUint32(this.pos, v % TWO_32 >>> 0, true);
    this.view.setUint32(this.pos + 4, Math.floor(v / TWO_32) >>> 0, true);
    this.pos += 8;
  }

  double(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string (the caller writes the tag). */
  string(s: string): void {
    // One length byte covers strings of up to 127 bytes, and UTF-8 takes at most 3 bytes per UTF-16 unit.
    const len = s.length;
    if (len * 3 < 128) {
      this.ensure(1 + len * 3);
      const b = this.buf;
      // Names and arg values are short and nearly always ASCII: copying the chars beats Buffer.write's call.
      let p = this.pos + 1, i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[p++] = c;
      }
      if (i < len) p = this.pos + 1 + b.write(s, this.pos + 1);
      b[this.pos] = p - this.pos - 1;
      this.pos = p;
    } else {
      const n = Buffer.byteLength(s);
      this.varint(n);
      this.ensure(n);
      this.buf.write(s, this.pos);
      this.pos += n;
    }
  }

  /** Raw bytes (an already-encoded message). */
  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /** Starts a length-delimited field body; returns the mark to pass to `close`. */
  open(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the body started at `mark`, writing its length (shifting the body if it needs >1 length byte). */
  close(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 128) { this.buf[mark] = len; return; }
    let size = 1;
    for (let x = len; x > 127; x = Math.floor(x / 128)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(mark + size, mark + 1, this.pos);
    let p = mark, x = len;
    while (x > 127) { this.buf[p++] = (x & 0x7f) | 0x80; x = Math.floor(x / 128); }
    this.buf[p] = x;
    this.pos += size - 1;
  }
}

/** Unchecked varint of a non-negative integer below 2^32 at `p` (the caller made room); returns the new end. */
export function putVarint(b: Buffer, p: number, v: number): number {
  while (v > 127) { b[p++] = (v & 0x7f) | 0x80; v >>>= 7; }
  b[p++] = v;
  return p;
}

/** Unchecked varint of a 64-bit value given as two unsigned 32-bit halves; returns the new end. */
export function putVarint64(b: Buffer, p: number, lo: number, hi: number): number {
  return writeVarint64(b, p, lo >>> 0, hi >>> 0);
}

function writeVarint64(b: Buffer, p: number, lo: number, hi: number): number {
  while (hi > 0 || lo > 127) {
    b[p++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  b[p++] = lo;
  return p;
}
