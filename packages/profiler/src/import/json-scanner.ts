/**
 * Incremental splitter for Chrome trace JSON (object form `{"traceEvents": [...], ...}` or bare array form).
 * It never holds more than the current chunk plus one unfinished event: each complete event object is handed
 * over as a byte range, and other top-level values as their raw text (capped), so the caller can parse them.
 * Chrome and Perfetto accept an array whose closing `]` is missing; so does this.
 */

export class JsonScanError extends Error {
  constructor(readonly offset: number, readonly line: number, message: string) { super(message); }
}

export interface JsonScanHandler {
  /**
   * One element of traceEvents: bytes [start, end) of `buf`, starting on `line`. `tsAt` and `durAt` are the
   * positions in `buf` just past the colon of the event's own (depth-1) "ts" and "dur" keys, or -1: found while
   * splitting, so the exact digits of the times need no second pass over the event. `numberFlags` (LONG_DIGITS,
   * INTEGRAL_REAL) say which numbers the event has that JSON.parse reads as something else than trace_processor.
   */
  event(buf: Buffer, start: number, end: number, line: number, offset: number, tsAt: number, durAt: number, numberFlags: number): void;
  /** A top-level key other than traceEvents with its raw value text, or null when it was too large to keep. */
  topLevel(key: string, raw: string | null, line: number): void;
  /** A `null` element in traceEvents (Perfetto skips it); without this handler it is an error. */
  nullEvent?(line: number, offset: number): void;
}

/** A number with the digits an integer at or past 2^53 needs (17, or 16 from a 9): an int64 a double may round. */
export const LONG_DIGITS = 1;
/**
 * A number inside the event's objects (an arg, not its own ts or dur) written with an all-zero fraction or an
 * exponent (`1.0`, `1e3`): a real that JSON.parse makes an integer.
 */
export const INTEGRAL_REAL = 2;

const enum S { Start, ObjKey, ObjColon, ObjValue, Events, EventsNext, ObjNext, Done }

const MAX_EVENT_BYTES = 64 << 20;
const MAX_TOPLEVEL_BYTES = 16 << 20;

/** Resumable scanner for the extent of one JSON value (object, array, string or literal). */
class ValueExtent {
  depth = 0;
  inStr = false;
  esc = false;
  kind = 0; // 0 not started, 1 container, 2 string, 3 literal
  newlines = 0;
  /** Where the string being read opened; whether the last depth-1 string was the key "ts" (1) or "dur" (2). */
  private strStart = -1;
  private pendingKey = 0;
  tsAt = -1;
  durAt = -1;
  /** The current run of digits outside strings: its length and first digit. */
  private digits = 0;
  private firstDigit = 0;
  /** The number being read: whether it had a point, a non-zero digit after it, an exponent. */
  private inNumber = false;
  private point = false;
  private fractionNonZero = false;
  private exponent = false;
  /** What the event's numbers were (LONG_DIGITS, INTEGRAL_REAL): found here, on the scan's thread, so that the parsing thread needs no pass of its own over the text. */
  numberFlags = 0;

  reset(): void {
    this.depth = 0; this.inStr = false; this.esc = false; this.kind = 0; this.newlines = 0;
    this.strStart = -1; this.pendingKey = 0; this.tsAt = -1; this.durAt = -1;
    this.digits = 0; this.firstDigit = 0; this.numberFlags = 0;
    this.inNumber = false; this.point = false; this.fractionNonZero = false; this.exponent = false;
  }

  /** The buffer lost its first `n` bytes: move the remembered positions with it. */
  rebase(n: number): void {
    if (this.strStart >= 0) this.strStart -= n;
    if (this.tsAt >= 0) this.tsAt -= n;
    if (this.durAt >= 0) this.durAt -= n;
  }

  /** Index just past the value, or -1 when `end` was reached first (call again with more bytes). */
  scan(buf: Buffer, pos: number, end: number): number {
    if (this.kind === 0) {
      const c = buf[pos]!;
      if (c === 0x7b || c === 0x5b) { this.kind = 1; this.depth = 1; pos++; }
      else if (c === 0x22) { this.kind = 2; this.inStr = true; pos++; }
      else this.kind = 3;
    }
    if (this.kind === 3) {
      for (; pos < end; pos++) {
        const c = buf[pos]!;
        if (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return pos;
      }
      return -1;
    }
    while (pos < end) {
      if (this.inStr) {
        // Jump to the next quote; backslashes before it decide whether it ends the string.
        if (this.esc) { this.esc = false; pos++; continue; }
        const q = buf.indexOf(0x22, pos);
        if (q === -1 || q >= end) {
          // Remember whether the chunk ends in an odd run of backslashes (escaping the next byte).
          let n = 0;
          for (let i = end - 1; i >= pos && buf[i] === 0x5c; i--) n++;
          this.esc = (n & 1) === 1;
          return -1;
        }
        let n = 0;
        for (let i = q - 1; i >= pos && buf[i] === 0x5c; i--) n++;
        pos = q + 1;
        if ((n & 1) === 1) continue; // an escaped quote
        this.inStr = false;
        if (this.kind === 2) return pos;
        if (this.depth === 1) {
          const s = this.strStart, len = q - s - 1;
          if (len === 2 && buf[s + 1] === 0x74 && buf[s + 2] === 0x73) this.pendingKey = 1;
          else if (len === 3 && buf[s + 1] === 0x64 && buf[s + 2] === 0x75 && buf[s + 3] === 0x72) this.pendingKey = 2;
        }
        continue;
      }
      const c = buf[pos++]!;
      if (c >= 0x30 && c <= 0x39) {
        if (this.digits++ === 0) this.firstDigit = c;
        if (this.digits >= 16 && (this.digits > 16 || this.firstDigit === 0x39)) this.numberFlags |= LONG_DIGITS;
        if (this.point && !this.exponent && c !== 0x30) this.fractionNonZero = true;
        this.inNumber = true;
        continue;
      }
      this.digits = 0;
      if (this.inNumber) {
        if (c === 0x2e) { this.point = true; continue; }
        if (c === 0x65 || c === 0x45) { this.exponent = true; continue; }
        if (c === 0x2b || c === 0x2d) continue;
        if (this.depth >= 2 && (this.exponent || (this.point && !this.fractionNonZero))) this.numberFlags |= INTEGRAL_REAL;
        this.inNumber = false; this.point = false; this.fractionNonZero = false; this.exponent = false;
      }
      if (c === 0x22) { this.inStr = true; this.strStart = pos - 1; this.pendingKey = 0; }
      else if (c === 0x3a) {
        // A string followed by a colon is a key; the same string as a value is followed by ',' or '}'.
        if (this.pendingKey === 1) this.tsAt = pos; else if (this.pendingKey === 2) this.durAt = pos;
        this.pendingKey = 0;
      } else if (c === 0x7b || c === 0x5b) { this.depth++; this.pendingKey = 0; }
      else if (c === 0x7d || c === 0x5d) { if (--this.depth === 0) return pos; }
      else if (c === 0x2c) this.pendingKey = 0;
      else if (c === 0x0a) this.newlines++;
    }
    return -1;
  }
}

export class ChromeJsonScanner {
  private state = S.Start;
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** File offset of buf[0]. */
  private base = 0;
  private line = 1;
  private arrayForm = false;
  /** Whether an event array was found (the array form, or a top-level "traceEvents" array). */
  hasEventArray = false;
  private readonly extent = new ValueExtent();
  /** Start (in buf) of an unfinished token that must stay in the buffer, or -1. */
  private tokenStart = -1;
  private tokenLine = 1;
  private key = '';
  private captureParts: Buffer[] = [];
  private captureBytes = 0;

  constructor(private readonly handler: JsonScanHandler) {}

  push(chunk: Buffer): void {
    const keep = this.tokenStart >= 0 ? this.tokenStart : this.pos;
    const rest = this.buf.subarray(keep);
    this.base += keep;
    this.extent.rebase(keep);
    this.buf = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    this.pos -= keep;
    if (this.tokenStart >= 0) this.tokenStart = 0;
    this.run(false);
  }

  end(): void {
    this.run(true);
    const unfinishedArray = this.arrayForm && (this.state === S.Events || this.state === S.EventsNext) && this.tokenStart < 0;
    if (this.state !== S.Done && !unfinishedArray) {
      if (this.state === S.Start) throw this.error('no JSON value');
      throw this.error('unexpected end of input (truncated JSON)');
    }
  }

  private error(msg: string, at = this.pos): JsonScanError {
    return new JsonScanError(this.base + at, this.line, msg);
  }

  /** Skips whitespace; returns the next byte or -1 at the end of the buffer. */
  private peek(): number {
    const buf = this.buf;
    while (this.pos < buf.length) {
      const c = buf[this.pos]!;
      if (c === 0x0a) { this.line++; this.pos++; continue; }
      if (c === 0x20 || c === 0x0d || c === 0x09) { this.pos++; continue; }
      if (c === 0xef && this.state === S.Start && buf[this.pos + 1] === 0xbb && buf[this.pos + 2] === 0xbf) { this.pos += 3; continue; }
      return c;
    }
    return -1;
  }

  private run(atEof: boolean): void {
    const buf = this.buf;
    for (;;) {
      if (this.tokenStart >= 0) {
        // Continue an unfinished value: an event, a key string or a captured top-level value.
        const endAt = this.extent.scan(buf, this.pos, buf.length);
        if (endAt < 0) {
          if (this.extent.kind === 3 && atEof) { this.finishToken(buf.length); continue; }
          if (this.state === S.ObjValue) {
            this.capture(buf.subarray(this.tokenStart, buf.length));
            this.tokenStart = buf.length; // captured bytes need not stay in the buffer
          } else if (buf.length - this.tokenStart > MAX_EVENT_BYTES) {
            throw this.error(`a single event is larger than ${MAX_EVENT_BYTES >> 20} MiB`, this.tokenStart);
          }
          this.pos = buf.length;
          return;
        }
        this.finishToken(endAt);
        continue;
      }
      const c = this.peek();
      if (c < 0) return;
      switch (this.state) {
        case S.Start:
          if (c === 0x5b) { this.arrayForm = true; this.hasEventArray = true; this.state = S.Events; this.pos++; }
          else if (c === 0x7b) { this.state = S.ObjKey; this.pos++; }
          else throw this.error(`expected '{' or '[' at the start of a JSON trace, found ${describe(c)}`);
          break;
        case S.ObjKey:
          if (c === 0x7d) { this.state = S.Done; this.pos++; break; }
          if (c !== 0x22) throw this.error(`expected a key string, found ${describe(c)}`);
          this.startToken();
          break;
        case S.ObjColon:
          if (c !== 0x3a) throw this.error(`expected ':' after key "${this.key}", found ${describe(c)}`);
          this.pos++;
          this.state = S.ObjValue;
          break;
        case S.ObjValue:
          if (this.key === 'traceEvents' && c === 0x5b) { this.pos++; this.hasEventArray = true; this.state = S.Events; break; }
          this.captureParts = [];
          this.captureBytes = 0;
          this.startToken();
          break;
        case S.ObjNext:
          if (c === 0x2c) { this.pos++; this.state = S.ObjKey; }
          else if (c === 0x7d) { this.pos++; this.state = S.Done; }
          else throw this.error(`expected ',' or '}' after the value of "${this.key}", found ${describe(c)}`);
          break;
        case S.Events:
          if (c === 0x5d) { this.pos++; this.state = this.arrayForm ? S.Done : S.ObjNext; break; }
          if (c === 0x6e && this.handler.nullEvent) {
            if (this.pos + 4 > buf.length) {
              if (atEof) throw this.error('unexpected end of input (truncated JSON)');
              return; // the rest of the token comes with the next chunk
            }
            if (buf.toString('latin1', this.pos, this.pos + 4) === 'null') {
              this.handler.nullEvent(this.line, this.base + this.pos);
              this.pos += 4;
              this.state = S.EventsNext;
              break;
            }
          }
          if (c !== 0x7b) throw this.error(`expected an event object in traceEvents, found ${describe(c)}`);
          this.startToken();
          break;
        case S.EventsNext:
          if (c === 0x2c) { this.pos++; this.state = S.Events; }
          else if (c === 0x5d) { this.pos++; this.state = this.arrayForm ? S.Done : S.ObjNext; }
          else throw this.error(`expected ',' or ']' between events, found ${describe(c)}`);
          break;
        case S.Done:
          throw this.error(`unexpected ${describe(c)} after the end of the trace`);
      }
    }
  }

  private startToken(): void {
    this.tokenStart = this.pos;
    this.tokenLine = this.line;
    this.extent.reset();
  }

  private finishToken(endAt: number): void {
    const buf = this.buf;
    const start = this.tokenStart;
    this.tokenStart = -1;
    this.pos = endAt;
    this.line += this.extent.newlines;
    switch (this.state) {
      case S.ObjKey: {
        try {
          this.key = JSON.parse(buf.toString('utf8', start, endAt)) as string;
        } catch {
          throw new JsonScanError(this.base + start, this.tokenLine, 'malformed key string');
        }
        this.state = S.ObjColon;
        break;
      }
      case S.ObjValue: {
        this.capture(buf.subarray(start, endAt));
        const raw = this.captureBytes <= MAX_TOPLEVEL_BYTES ? Buffer.concat(this.captureParts).toString('utf8') : null;
        this.captureParts = [];
        this.handler.topLevel(this.key, raw, this.tokenLine);
        this.state = S.ObjNext;
        break;
      }
      case S.Events:
        this.handler.event(buf, start, endAt, this.tokenLine, this.base + start, this.extent.tsAt, this.extent.durAt, this.extent.numberFlags);
        this.state = S.EventsNext;
        break;
      default:
        throw this.error('internal scanner state');
    }
  }

  private capture(part: Buffer): void {
    this.captureBytes += part.length;
    if (this.captureBytes <= MAX_TOPLEVEL_BYTES) this.captureParts.push(Buffer.from(part));
  }
}

function describe(c: number): string {
  return c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
}
