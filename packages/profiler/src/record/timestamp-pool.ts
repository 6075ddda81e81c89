/// <reference types="@webgpu/types" />
/**
 * Timestamp query storage for instrumented passes.
 * Query sets hold at most 4096 queries (WebGPU's limit); each is cut into blocks that one command encoder owns
 * until the submit carrying it has been read back. Each set has a QUERY_RESOLVE buffer of the same layout, so a
 * block always resolves at offset start*8, a multiple of 256 bytes as resolveQuerySet requires. Readback goes
 * through MAP_READ buffers recycled by size; none is ever waited on synchronously.
 */

export const QUERIES_PER_SET = 4096;
/** 128 queries = 64 passes per block; 128*8 = 1024 bytes keeps every block offset 256-byte aligned. */
export const QUERIES_PER_BLOCK = 128;

// GPUBufferUsage values, spelled out so this works without WebGPU globals installed.
const MAP_READ = 0x0001;
const COPY_SRC = 0x0004;
const COPY_DST = 0x0008;
const QUERY_RESOLVE = 0x0200;

export interface QueryBlock {
  set: GPUQuerySet;
  resolveBuffer: GPUBuffer;
  /** First query index of the block in its set. */
  start: number;
  /** Queries handed out so far. */
  used: number;
}

export class TimestampPool {
  private readonly freeBlocks: QueryBlock[] = [];
  private readonly freeReadbacks = new Map<number, GPUBuffer[]>();
  private readonly owned: { destroy(): void }[] = [];
  setsCreated = 0;
  readbacksCreated = 0;

  constructor(
    private readonly device: GPUDevice,
    /** The device's own createBuffer, so pool buffers do not count as the program's memory. */
    private readonly createBuffer: (d: GPUBufferDescriptor) => GPUBuffer,
  ) {}

  acquireBlock(): QueryBlock {
    const block = this.freeBlocks.pop();
    if (block) { block.used = 0; return block; }
    this.addSet();
    return this.freeBlocks.pop()!;
  }

  releaseBlock(block: QueryBlock): void {
    this.freeBlocks.push(block);
  }

  acquireReadback(bytes: number): GPUBuffer {
    const size = bucket(bytes);
    const free = this.freeReadbacks.get(size);
    const buf = free?.pop();
    if (buf) return buf;
    this.readbacksCreated++;
    const b = this.createBuffer({ label: 'gsprof timestamp readback', size, usage: MAP_READ | COPY_DST });
    this.owned.push(b);
    return b;
  }

  releaseReadback(buf: GPUBuffer): void {
    const list = this.freeReadbacks.get(buf.size) ?? [];
    list.push(buf);
    this.freeReadbacks.set(buf.size, list);
  }

  destroy(): void {
    for (const o of this.owned) o.destroy();
    this.owned.length = 0;
    this.freeBlocks.length = 0;
    this.freeReadbacks.clear();
  }

  private addSet(): void {
    this.setsCreated++;
    const set = this.device.createQuerySet({ label: 'gsprof timestamps', type: 'timestamp', count: QUERIES_PER_SET });
    const resolveBuffer = this.createBuffer({
      label: 'gsprof timestamp resolve', size: QUERIES_PER_SET * 8, usage: QUERY_RESOLVE | COPY_SRC,
    });
    this.owned.push(set, resolveBuffer);
    // Pushed in reverse so blocks are handed out from the start of the set.
    for (let start = QUERIES_PER_SET - QUERIES_PER_BLOCK; start >= 0; start -= QUERIES_PER_BLOCK) {
      this.freeBlocks.push({ set, resolveBuffer, start, used: 0 });
    }
  }
}

function bucket(bytes: number): number {
  let size = 256;
  while (size < bytes) size *= 2;
  return size;
}
