/**
 * Perfetto clock domains, as trace_processor resolves them: every packet timestamp is in some clock
 * (TracePacket.timestamp_clock_id, else the sequence's TracePacketDefaults.timestamp_clock_id, else the trace
 * clock) and is converted to the trace clock (BOOTTIME unless a ClockSnapshot names another primary clock)
 * through the ClockSnapshots: for each hop, the snapshot whose source time is the latest one not after the
 * timestamp (else the earliest). Clock ids 64..127 are scoped to their packet sequence; an incremental clock's
 * timestamps are deltas from its previous value (the snapshot sets the starting value).
 */

export const BOOTTIME = 6;
/** The clock of TrackEvent's legacy timestamp fields (timestamp_delta_us, timestamp_absolute_us). */
export const MONOTONIC = 3;

export interface SnapshotClock { id: number; ts: bigint; incremental: boolean; multiplier: bigint }

interface Domain { multiplier: bigint; incremental: boolean; last: bigint }

/** Clock key: a sequence-scoped clock is a different clock on every sequence. */
function clockKey(id: number, seq: number): string {
  return id >= 64 && id <= 127 ? `${seq}/${id}` : String(id);
}

export class ClockTracker {
  /** The clock that trace time is in. */
  private traceClock = String(BOOTTIME);
  private traceClockUsed = false;
  private readonly domains = new Map<string, Domain>();
  /** Snapshot index -> clock key -> ns. */
  private readonly snapshots: Map<string, bigint>[] = [];
  /** Per clock: the snapshots it appears in, as [ns, snapshot index], sorted by ns. */
  private readonly byClock = new Map<string, [bigint, number][]>();
  private readonly paths = new Map<string, string[] | null>();

  /** Records a ClockSnapshot packet; returns a problem description when part of it is ignored. */
  snapshot(clocks: SnapshotClock[], primary: number | null, seq: number): string | null {
    let problem: string | null = null;
    if (primary !== null && primary !== 0) {
      const key = clockKey(primary, seq);
      if (key !== this.traceClock) {
        if (this.traceClockUsed) problem = 'primary_trace_clock changed after timestamps were converted';
        else this.traceClock = key;
      }
    }
    const snap = new Map<string, bigint>();
    for (const c of clocks) {
      const key = clockKey(c.id, seq);
      let d = this.domains.get(key);
      if (!d) { d = { multiplier: c.multiplier, incremental: c.incremental, last: 0n }; this.domains.set(key, d); }
      else if (d.multiplier !== c.multiplier || d.incremental !== c.incremental) {
        problem = `clock ${c.id} changed its unit or incremental encoding`;
        continue;
      }
      const ns = c.ts * d.multiplier;
      d.last = ns;
      snap.set(key, ns);
    }
    const index = this.snapshots.length;
    this.snapshots.push(snap);
    for (const [key, ns] of snap) {
      let list = this.byClock.get(key);
      if (!list) { list = []; this.byClock.set(key, list); }
      list.push([ns, index]);
      // Snapshots nearly always arrive in time order; keep the list sorted when they do not.
      for (let i = list.length - 1; i > 0 && list[i - 1]![0] > list[i]![0]; i--) [list[i - 1], list[i]] = [list[i]!, list[i - 1]!];
    }
    this.paths.clear();
    return problem;
  }

  /** Whether timestamps in this clock need no conversion. */
  isTraceClock(id: number, seq: number): boolean {
    return clockKey(id, seq) === this.traceClock && !this.domains.get(this.traceClock)?.incremental;
  }

  /** A timestamp in clock `id` as trace-clock ns, or null when no snapshot connects the two clocks. */
  toTrace(id: number, seq: number, raw: bigint): bigint | null {
    const key = clockKey(id, seq);
    const d = this.domains.get(key);
    let ns: bigint;
    if (d?.incremental) { d.last += raw * d.multiplier; ns = d.last; } else ns = raw * (d?.multiplier ?? 1n);
    this.traceClockUsed = true;
    if (key === this.traceClock) return ns;
    const path = this.path(key);
    if (!path) return null;
    for (let i = 0; i + 1 < path.length; i++) {
      const from = path[i]!;
      const to = path[i + 1]!;
      const list = this.byClock.get(from)!;
      // Latest snapshot shared with `to` whose `from` time is not after ns; else the earliest shared one.
      let chosen: [bigint, number] | null = null;
      for (const entry of list) {
        if (!this.snapshots[entry[1]]!.has(to)) continue;
        if (chosen === null || entry[0] <= ns) chosen = entry;
        if (entry[0] > ns) break;
      }
      if (!chosen) return null;
      ns = ns - chosen[0] + this.snapshots[chosen[1]]!.get(to)!;
    }
    return ns;
  }

  /** Shortest chain of clocks from `from` to the trace clock through shared snapshots (breadth first). */
  private path(from: string): string[] | null {
    const cached = this.paths.get(from);
    if (cached !== undefined) return cached;
    const prev = new Map<string, string>([[from, '']]);
    const queue = [from];
    let found: string[] | null = null;
    while (queue.length > 0 && !found) {
      const cur = queue.shift()!;
      for (const [, index] of this.byClock.get(cur) ?? []) {
        for (const next of this.snapshots[index]!.keys()) {
          if (prev.has(next)) continue;
          prev.set(next, cur);
          if (next === this.traceClock) {
            found = [next];
            for (let c = cur; c !== ''; c = prev.get(c)!) found.unshift(c);
            break;
          }
          queue.push(next);
        }
        if (found) break;
      }
    }
    this.paths.set(from, found);
    return found;
  }
}
