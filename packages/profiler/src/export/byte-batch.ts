// The growable byte buffer under both hand-written exporters (json-batch.ts for Chrome JSON, packet-buffer.ts
// for Perfetto protobuf): subclasses append bytes at `pos`, calling `ensure` first, and hand batches to the
// file sink through `takeShared`/`recycle`, so a long export cycles through a few buffers.

export class ByteBatch {
  buf: Buffer;
  pos = 0;
  private spare: Buffer[] = [];

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Switches to `b`; subclasses that keep a view of the buffer override this to refresh it. */
  protected useBuffer(b: Buffer): void {
    this.buf = b;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.useBuffer(bigger);
  }

  /**
   * Hands out the bytes so far without copying and continues in a spare buffer; pass the returned bytes to
   * `recycle` once they have been written, so a long export cycles through a few buffers instead of
   * allocating (and garbage-collecting) one per batch.
   */
  takeShared(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.useBuffer(this.spare.pop() ?? Buffer.allocUnsafe(this.buf.length));
    this.pos = 0;
    return out;
  }

  recycle(used: Buffer): void {
    if (this.spare.length < 8) this.spare.push(Buffer.from(used.buffer, used.byteOffset, used.buffer.byteLength - used.byteOffset));
  }

  /** Copies out the bytes written so far and starts over (the buffer is reused). */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}
