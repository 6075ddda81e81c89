/**
 * Reads GPU buffers back through a ring of MAP_READ staging buffers, so a read never blocks the queue for
 * other work and staging buffers are reused instead of allocated per read.
 */
export class ReadbackRing {
  private readonly free: GPUBuffer[] = [];
  private readonly all: GPUBuffer[] = [];

  constructor(private readonly device: GPUDevice, private readonly maxBuffers = 4) {}

  private acquire(size: number): GPUBuffer {
    const idx = this.free.findIndex((b) => b.size >= size);
    if (idx >= 0) return this.free.splice(idx, 1)[0]!;
    if (this.all.length >= this.maxBuffers && this.free.length > 0) {
      const old = this.free.shift()!;
      this.all.splice(this.all.indexOf(old), 1);
      old.destroy();
    }
    const buf = this.device.createBuffer({
      label: 'sim.readback',
      size: Math.max(256, Math.ceil(size / 256) * 256),
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    this.all.push(buf);
    return buf;
  }

  async read(src: GPUBuffer, offset: number, size: number): Promise<ArrayBuffer> {
    const staging = this.acquire(size);
    const enc = this.device.createCommandEncoder({ label: 'sim.readback' });
    enc.copyBufferToBuffer(src, offset, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ, 0, size);
    const copy = staging.getMappedRange(0, size).slice(0);
    staging.unmap();
    this.free.push(staging);
    return copy;
  }

  destroy(): void {
    for (const b of this.all) b.destroy();
    this.all.length = 0;
    this.free.length = 0;
  }
}
