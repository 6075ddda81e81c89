// An EventStream -> Perfetto protobuf (.pftrace), in bounded memory: each slice is placed (LaneAssigner) and
// begun as it arrives, and ended (SLICE_END) before the first later event that starts at or after its end. An
// overflow lane's track is declared when its first slice arrives. Memory: one batch and the open slices.
import { METADATA_ARG, METADATA_CATEGORY, METADATA_EVENT, hostThreadTrack } from './common.js';
import { EndHeap } from './end-heap.js';
import { TimeOrder, type EventStream, type StreamFlow } from './event-stream.js';
import { LaneAssigner, tracksById } from './layout.js';
import { PerfettoStreamWriter } from './perfetto-writer.js';

const flowIds = (flows: StreamFlow[] | undefined): number[] | undefined => flows?.map((f) => f.id);

export async function writePerfettoStream(trace: EventStream, path: string): Promise<void> {
  const shell = { ...trace, slices: [], instants: [], counters: [], flows: [], envTimers: [] };
  const byId = tracksById(shell);
  const trackIndex = new Map(trace.tracks.map((t, i) => [t.id, i]));
  const host = hostThreadTrack(shell);
  const md = trace.metadata;
  const w = await PerfettoStreamWriter.open(path, { baseTimeNs: md.baseTimeNs });
  try {
    w.preIntern([METADATA_EVENT], [METADATA_CATEGORY], [METADATA_ARG]);
    for (const p of trace.processes) w.addProcess(p.pid, p.name, p.labels);
    const lanes = new LaneAssigner(trace.tracks);
    // Lane keys: lane 0 of a track is keyed by the track id, overflow lanes by ids past every track id.
    let nextKey = trace.tracks.reduce((m, t) => Math.max(m, t.id), host.synthetic ? host.track.id : 0) + 1;
    const laneKey = trace.tracks.map((t) => t.id);
    for (const t of trace.tracks) w.addTrack(t);
    if (host.synthetic) w.addTrack(host.track);
    w.metadata(host.track.id, md, trace.flowNames);

    // Open slices live in slots (end time, depth, lane key); a closed slice's slot is reused.
    let endOf = new Float64Array(64);
    let depthOf = new Int32Array(64);
    let keyOf = new Int32Array(64);
    const free: number[] = [];
    let used = 0;
    const open = new EndHeap(endOf, depthOf);
    const closeUntil = (t: number): void => {
      while (open.size > 0 && endOf[open.peek()]! <= t) {
        const j = open.pop();
        w.endAt(keyOf[j]!, endOf, j);
        free.push(j);
      }
    };
    const slot = (): number => {
      const j = free.pop();
      if (j !== undefined) return j;
      if (used === endOf.length) {
        const grow = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => { const b = make(a.length * 2); b.set(a); return b; };
        endOf = grow(endOf, (n) => new Float64Array(n));
        depthOf = grow(depthOf, (n) => new Int32Array(n));
        keyOf = grow(keyOf, (n) => new Int32Array(n));
        open.endOf = endOf;
        open.depthOf = depthOf;
      }
      return used++;
    };

    const order = new TimeOrder();
    for await (const batch of trace.events) {
      for (const e of batch) {
        const ts = order.check(e);
        closeUntil(ts);
        if (e.kind === 'slice') {
          const t = trackIndex.get(e.track);
          if (t === undefined) throw new Error(`trace: slice '${e.name}' is on unknown track ${e.track}`);
          if (trace.tracks[t]!.kind === 'counter') throw new Error(`trace: slice '${e.name}' is on counter track ${e.track}`);
          const end = ts + e.dur;
          const lane = lanes.place(t, ts, end);
          if (lane === laneKey.length) {
            laneKey.push(nextKey);
            w.addTrack(lanes.lanes[lane]!.track, lanes.lanes[lane]!.index, nextKey++);
          }
          w.begin(laneKey[lane]!, e.name, e.category, ts, e.args, flowIds(e.flowsOut), flowIds(e.flowsIn));
          const j = slot();
          endOf[j] = end;
          depthOf[j] = lanes.depth;
          keyOf[j] = laneKey[lane]!;
          open.push(j);
        } else if (e.kind === 'instant') {
          if (!byId.has(e.track)) throw new Error(`trace: instant '${e.name}' is on unknown track ${e.track}`);
          w.instant(e.track, e.name, e.category, ts, e.args, flowIds(e.flowsOut), flowIds(e.flowsIn));
        } else if (e.kind === 'counter') {
          if (!byId.has(e.track)) throw new Error(`trace: counter sample is on unknown track ${e.track}`);
          w.counter(e.track, ts, e.value);
        } else {
          w.envTimers(host.track.id, e.sample, md.timerLabels);
        }
        if (w.needsDrain) await w.drain();
      }
    }
    closeUntil(Infinity);
    await w.close();
  } catch (e) {
    await w.abort();
    throw e;
  }
}
