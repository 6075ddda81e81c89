// A reusable byte batch for the Chrome JSON writer. The hot path (one X event per slice) appends pre-encoded
// pieces and digits straight into the buffer, so writing a million events allocates almost nothing; rarer
// events go through `text()` as ordinary strings.

import { ByteBatch } from './byte-batch.js';

/** Characters that JSON.stringify escapes (quotes, backslash, controls, lone surrogate halves). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON must escape exactly these control characters
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A JSON string literal; plain names (nearly all of them) skip JSON.stringify. */
export function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** Integer ns -> µs with exactly three decimals, exact for any safe integer. */
export function formatMicros(ns: number): string {
  let n = Math.round(ns);
  let sign = '';
  if (n < 0) { sign = '-'; n = -n; }
  const us = Math.floor(n / 1000);
  const rem = n - us * 1000;
  return sign + us + (rem >= 100 ? '.' : rem >= 10 ? '.0' : '.00') + rem;
}

const POW10 = Array.from({ length: 17 }, (_, i) => 10 ** i);

export class JsonBatch extends ByteBatch {
  /** Any string, UTF-8 encoded. */
  text(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos);
  }

  /** Pre-encoded bytes; short pieces are copied by hand (cheaper than a native call). */
  bytes(b: Buffer): void {
    const n = b.length;
    this.ensure(n);
    const buf = this.buf;
    let p = this.pos;
    if (n <= 32) for (let i = 0; i < n; i++) buf[p++] = b[i]!;
    else { buf.set(b, p); p += n; }
    this.pos = p;
  }

  /** A JSON string literal of `s`: printable ASCII is copied char by char, anything else goes through quote(). */
  string(s: string): void {
    const n = s.length;
    this.ensure(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 34;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92 || c > 126) {
        this.text(quote(s));
        return;
      }
      buf[p++] = c;
    }
    buf[p++] = 34;
    this.pos = p;
  }

  /** Decimal digits of a non-negative safe integer. */
  private digits(n: number): void {
    this.ensure(20);
    const buf = this.buf;
    let len = 1;
    while (len < 16 && n >= POW10[len]!) len++;
    let p = this.pos + len;
    this.pos = p;
    do {
      const q = Math.floor(n / 10);
      buf[--p] = 48 + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** A JSON number: integers as digits, other finite numbers as JavaScript prints them, else null. */
  number(v: number): void {
    if (Number.isSafeInteger(v)) {
      if (v < 0) { this.ensure(1); this.buf[this.pos++] = 45; v = -v; }
      this.digits(v);
    } else {
      this.text(Number.isFinite(v) ? String(v) : 'null');
    }
  }

  /** ns as µs with exactly three decimals. */
  micros(ns: number): void {
    let n = Math.round(ns);
    if (!Number.isSafeInteger(n)) { this.text(formatMicros(ns)); return; }
    if (n < 0) { this.ensure(1); this.buf[this.pos++] = 45; n = -n; }
    const us = Math.floor(n / 1000);
    const rem = n - us * 1000;
    this.digits(us);
    this.ensure(4);
    const buf = this.buf;
    const p = this.pos;
    buf[p] = 46;
    buf[p + 1] = 48 + Math.floor(rem / 100);
    buf[p + 2] = 48 + (Math.floor(rem / 10) % 10);
    buf[p + 3] = 48 + (rem % 10);
    this.pos = p + 4;
  }
}
