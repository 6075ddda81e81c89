import { readFileSync } from 'node:fs';
import type { MonotonicAnchor } from '../model/trace.js';

/** The host clock every CPU span uses. Monotonic ns as a double (exact to well below 1 ns for weeks of uptime);
 * tests swap in a fake one. */
export interface HostClock {
  nowNs(): number;
  /** Wall clock (epoch ns) at the given host time. */
  epochNs(hostNs: number): bigint;
  /** The machine's monotonic clock at the given host time, shared by every process on the machine until it
   *  reboots: what lets `gsprof merge` line up the traces of several processes more closely than their wall
   *  clocks do. Absent on a clock that has no such reading (a fake one). */
  monotonic?(hostNs: number): MonotonicAnchor;
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

let processOffset: { offsetNs: bigint; errorNs: number; bootId: string | null } | null = null;

/** performance.now() and process.hrtime() read the same monotonic clock from different origins; the origin's
 * difference is a constant of the process, found from the tightest of a few reads bracketed by hrtime. */
function monotonicOffset(): { offsetNs: bigint; errorNs: number; bootId: string | null } {
  if (processOffset) return processOffset;
  let width = Number.POSITIVE_INFINITY;
  let offsetNs = 0n;
  for (let i = 0; i < 64; i++) {
    const before = process.hrtime.bigint();
    const now = performance.now();
    const after = process.hrtime.bigint();
    const w = Number(after - before);
    if (w < width) {
      width = w;
      offsetNs = (before + after) / 2n - BigInt(Math.round(now * 1e6));
    }
  }
  // Half the bracket, plus the rounding of performance.now() to a whole ns.
  processOffset = { offsetNs, errorNs: width / 2 + 1, bootId: readBootId() };
  return processOffset;
}

export const systemClock: HostClock = {
  nowNs: () => performance.now() * 1e6,
  epochNs: (hostNs) => BigInt(Math.round(performance.timeOrigin * 1e6)) + BigInt(Math.round(hostNs)),
  monotonic: (hostNs) => {
    const { offsetNs, errorNs, bootId } = monotonicOffset();
    return { bootId, monotonicNs: (offsetNs + BigInt(Math.round(hostNs))).toString(), errorNs };
  },
};

/** A clock that only moves when told to (tests). */
export class FakeClock implements HostClock {
  constructor(public now = 0, public epochAtZero = 1_700_000_000_000_000_000n) {}
  nowNs(): number { return this.now; }
  epochNs(hostNs: number): bigint { return this.epochAtZero + BigInt(Math.round(hostNs)); }
  advance(ns: number): void { this.now += ns; }
}
