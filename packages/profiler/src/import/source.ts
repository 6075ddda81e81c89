/**
 * Opens a trace file as a stream of byte chunks, gunzipping when the file starts with the gzip magic bytes,
 * and tells JSON from protobuf by the first meaningful byte. Nothing here holds more than one chunk.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { TraceFormatError } from './errors.js';

export type TraceFormat = 'json' | 'proto';

export interface TraceSource {
  format: TraceFormat;
  gzipped: boolean;
  /** The file's size in bytes (compressed, when gzipped). */
  size: number;
  chunks: AsyncIterable<Buffer>;
  /** The file has no bytes (or a gzip of none): an empty trace, as trace_processor loads it. */
  empty?: boolean;
  /** Set when the gzip stream ended in error and `strict` was off: the data before it was delivered. */
  readonly gzipError: string | null;
  /** Closes the file, for a source whose chunks are not read to the end. */
  close(): Promise<void>;
  /**
   * SHA-256 of the file's bytes as stored (before gunzip), taken as the import reads them (no second read);
   * null until the file was read to its end. The import cache keeps it with the entry.
   */
  readonly contentHash: string | null;
}

const CHUNK = 1 << 20;

async function readHead(path: string, n: number): Promise<{ head: Buffer; size: number }> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new TraceFormatError(path, 'open', (err as Error).message.split('\n')[0]!);
  }
  try {
    // Only regular files: a directory fails on read, and a FIFO or device could block or never end.
    const st = await fh.stat();
    if (st.isDirectory()) throw new TraceFormatError(path, 'open', 'is a directory, not a trace file');
    if (!st.isFile()) throw new TraceFormatError(path, 'open', 'not a regular file');
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return { head: buf.subarray(0, bytesRead), size: st.size };
  } finally {
    await fh.close();
  }
}

/** The hash of a file's bytes as they are read: its digest once the file was read to its end, else null. */
class ReadHash {
  private readonly hash = createHash('sha256');
  digest: string | null = null;
  update(c: Buffer): void { this.hash.update(c); }
  end(): void { this.digest = this.hash.digest('hex'); }
}

async function* fileChunks(path: string, gzipped: boolean, strict: boolean, onGzipError: (msg: string) => void, hash: ReadHash): AsyncGenerator<Buffer> {
  const file = createReadStream(path, { highWaterMark: CHUNK });
  if (!gzipped) {
    for await (const c of file) {
      hash.update(c as Buffer);
      yield c as Buffer;
    }
    hash.end();
    return;
  }
  const gunzip = createGunzip({ chunkSize: CHUNK });
  file.on('error', (e) => gunzip.destroy(e));
  // pipe() reads the file through 'data' events: one more listener sees the same bytes, in order.
  file.on('data', (c) => { hash.update(c as Buffer); });
  file.on('end', () => { hash.end(); });
  file.pipe(gunzip);
  try {
    for await (const c of gunzip) yield c as Buffer;
  } catch (err) {
    file.destroy();
    const msg = `bad gzip data: ${(err as Error).message.split('\n')[0]}`;
    // Perfetto loads what decompressed before a truncated or corrupt gzip stream.
    if (!strict) { onGzipError(msg); return; }
    throw new TraceFormatError(path, `compressed byte ${gunzip.bytesWritten}`, msg);
  }
}

/** Index of the first byte that is not JSON whitespace or a UTF-8 byte order mark, from `from`; -1 if none. */
function meaningfulAt(buf: Buffer, from = 0): number {
  for (let i = from; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    if (b === 0xef && buf[i + 1] === 0xbb && buf[i + 2] === 0xbf) { i += 2; continue; }
    return i;
  }
  return -1;
}

function firstMeaningful(buf: Buffer): number | undefined {
  const i = meaningfulAt(buf);
  return i < 0 ? undefined : buf[i];
}

/**
 * Whether a buffer that starts with a newline, then '{' or '[', goes on as JSON does. A protobuf trace whose
 * first packet is 123 or 91 bytes long starts with the same two bytes (tag 0x0a, then the length), but a
 * packet's first field tag is none of what JSON allows after the bracket.
 */
function jsonAfterBracket(buf: Buffer): boolean {
  const open = meaningfulAt(buf);
  const next = meaningfulAt(buf, open + 1);
  if (next < 0) return true;
  const b = buf[next]!;
  if (buf[open] === 0x7b) return b === 0x22 || b === 0x7d;
  return b === 0x7b || b === 0x5b || b === 0x5d || isJsonScalarStart(b);
}

function isJsonScalarStart(b: number): boolean {
  return b === 0x22 || b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e;
}

export async function openTraceSource(path: string, strict = false): Promise<TraceSource> {
  const { head, size } = await readHead(path, 2);
  const gzipped = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
  const gz: { error: string | null } = { error: null };
  const hash = new ReadHash();
  const it = fileChunks(path, gzipped, strict, (msg) => { gz.error = msg; }, hash)[Symbol.asyncIterator]();
  // Peek until the first meaningful byte decides the format; a protobuf trace starts with tag 0x0a (packet).
  const peeked: Buffer[] = [];
  let first: number | undefined;
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    peeked.push(r.value);
    first = firstMeaningful(r.value);
    if (first !== undefined) break;
    if (peeked.reduce((n, b) => n + b.length, 0) > CHUNK) break;
  }
  if (first === undefined) {
    if (gz.error !== null) throw new TraceFormatError(path, 'byte 0', `${gz.error}, nothing decompressed`);
    if (peeked.length === 0 || peeked.every((b) => b.length === 0)) {
      // No bytes are a protobuf Trace of no packets: trace_processor loads an empty file as an empty trace.
      if (strict) throw new TraceFormatError(path, 'byte 0', 'empty file');
      return {
        format: 'proto', gzipped, size, chunks: (async function* () {})(), empty: true, gzipError: gz.error,
        contentHash: hash.digest, async close() { await it.return?.(undefined); },
      };
    }
    throw new TraceFormatError(path, 'byte 0', 'only whitespace, no trace data');
  }
  // As Perfetto guesses: '{' or '[' is JSON, a packet tag (field 1, length-delimited: 0x0a) is protobuf.
  // 0x0a is also a newline: a protobuf trace is recognised by its very first byte.
  const head0 = Buffer.concat(peeked);
  const bracket = first === 0x7b || first === 0x5b;
  const proto = head0[0] === 0x0a && (!bracket || !jsonAfterBracket(head0));
  if (!bracket && !proto) {
    const what = isJsonScalarStart(first) ? 'a JSON value that is not an object or array'
      : `first byte 0x${first.toString(16).padStart(2, '0')}`;
    throw new TraceFormatError(path, 'byte 0', `not a trace: ${what} (a JSON trace starts with '{' or '[', a Perfetto protobuf trace with 0x0a)`);
  }
  const format: TraceFormat = proto ? 'proto' : 'json';
  const chunks: AsyncIterable<Buffer> = {
    async *[Symbol.asyncIterator]() {
      for (const p of peeked) yield p;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    },
  };
  return {
    format, gzipped, size, chunks, get gzipError() { return gz.error; }, get contentHash() { return hash.digest; },
    async close() { await it.return?.(undefined); },
  };
}
