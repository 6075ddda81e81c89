/** The host clock every CPU span uses. Monotonic ns as a double (exact to well below 1 ns for weeks of uptime);
 * tests swap in a fake one. */
export interface HostClock {
  nowNs(): number;
  /** Wall clock (epoch ns) at the given host time. */
  epochNs(hostNs: number): bigint;
}

export const systemClock: HostClock = {
  nowNs: () => performance.now() * 1e6,
  epochNs: (hostNs) => BigInt(Math.round(performance.timeOrigin * 1e6)) + BigInt(Math.round(hostNs)),
};

/** A clock that only moves when told to (tests). */
export class FakeClock implements HostClock {
  constructor(public now = 0, public epochAtZero = 1_700_000_000_000_000_000n) {}
  nowNs(): number { return this.now; }
  epochNs(hostNs: number): bigint { return this.epochAtZero + BigInt(Math.round(hostNs)); }
  advance(ns: number): void { this.now += ns; }
}
