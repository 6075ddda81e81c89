/**
 * The clock samples of one device's batches, as the alignment needs them at the end of a cycle (clock-align.ts):
 * per batch, the submit's host time against its first pass's raw begin (a lower bound) and the completion's host
 * time against its last pass's raw end (an upper bound). Kept in flat typed arrays, 32 bytes a batch: the only
 * part of a cycle's GPU work that grows with its length when events are spilled (spill.ts).
 */
import type { ClockSample } from './clock-align.js';

export class GpuSamples {
  length = 0;
  private submitHost = new Float64Array(64);
  private doneHost = new Float64Array(64);
  private firstBegin = new BigInt64Array(64);
  private lastEnd = new BigInt64Array(64);

  push(submitHostNs: number, firstBegin: bigint, doneHostNs: number, lastEnd: bigint): void {
    if (this.length === this.submitHost.length) {
      const n = this.length * 2;
      const f = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => { const b = new Float64Array(n); b.set(a); return b; };
      const g = (a: BigInt64Array<ArrayBuffer>): BigInt64Array<ArrayBuffer> => { const b = new BigInt64Array(n); b.set(a); return b; };
      this.submitHost = f(this.submitHost);
      this.doneHost = f(this.doneHost);
      this.firstBegin = g(this.firstBegin);
      this.lastEnd = g(this.lastEnd);
    }
    const i = this.length++;
    this.submitHost[i] = submitHostNs;
    this.doneHost[i] = doneHostNs;
    this.firstBegin[i] = BigInt.asIntN(64, firstBegin);
    this.lastEnd[i] = BigInt.asIntN(64, lastEnd);
  }

  /** The samples with GPU times relative to `base` (kept small so a double holds them exactly). */
  relativeTo(base: bigint): { lower: ClockSample[]; upper: ClockSample[] } {
    const lower: ClockSample[] = [];
    const upper: ClockSample[] = [];
    for (let i = 0; i < this.length; i++) {
      lower.push({ hostNs: this.submitHost[i]!, gpuNs: Number(BigInt.asUintN(64, this.firstBegin[i]!) - base) });
      upper.push({ hostNs: this.doneHost[i]!, gpuNs: Number(BigInt.asUintN(64, this.lastEnd[i]!) - base) });
    }
    return { lower, upper };
  }
}
