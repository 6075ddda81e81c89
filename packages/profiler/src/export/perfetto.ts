// TraceModel -> Perfetto protobuf (.pftrace): places slices (layout.ts), then writes every event in time
// order through a PerfettoStreamWriter, closing slices (SLICE_END) before the next event that starts at or
// after their end.
import type { TraceModel } from '../model/trace.js';
import {
  ENV_TIMERS_CATEGORY, ENV_TIMERS_EVENT, METADATA_ARG, METADATA_CATEGORY, METADATA_EVENT, flowNamesJson, hostThreadTrack,
} from './common.js';
import { EndHeap } from './end-heap.js';
import { layoutSlices, releaseLayout, sortedByTs, tracksById } from './layout.js';
import { PerfettoStreamWriter, type PerfettoStreamWriterOptions } from './perfetto-writer.js';

/** writePerfettoTrace with writer options (the encoder choice is there for the benchmark and tests). */
export async function writePerfettoTraceFile(
  trace: TraceModel, path: string, options: Pick<PerfettoStreamWriterOptions, 'encoder' | 'chunkBytes'> = {},
): Promise<void> {
  const byId = tracksById(trace);
  const host = hostThreadTrack(trace);
  const layout = layoutSlices(trace, byId);
  const slices = trace.slices;
  const md = trace.metadata;

  // Outgoing and terminating flow ids per slice (Kineto's ac2g: submit -> GPU pass).
  const flowsOut = new Map<number, number[]>();
  const flowsIn = new Map<number, number[]>();
  trace.flows.forEach((f, k) => {
    if (!slices[f.fromSlice] || !slices[f.toSlice]) {
      throw new Error(`trace: flow ${k} (id ${f.id}) refers to missing slice ${slices[f.fromSlice] ? f.toSlice : f.fromSlice}`);
    }
    (flowsOut.get(f.fromSlice) ?? flowsOut.set(f.fromSlice, []).get(f.fromSlice)!).push(f.id);
    (flowsIn.get(f.toSlice) ?? flowsIn.set(f.toSlice, []).get(f.toSlice)!).push(f.id);
  });

  const w = await PerfettoStreamWriter.open(path, { ...options, baseTimeNs: md.baseTimeNs });
  try {
    const names = new Set<string>([METADATA_EVENT]);
    const categories = new Set<string>([METADATA_CATEGORY]);
    // The first packet carries the names seen early on; later ones are interned as they first appear.
    for (const s of slices.slice(0, 1024)) { names.add(s.name); categories.add(s.category); }
    for (const e of trace.instants.slice(0, 1024)) { names.add(e.name); categories.add(e.category); }
    if (trace.envTimers.length > 0) { names.add(ENV_TIMERS_EVENT); categories.add(ENV_TIMERS_CATEGORY); }
    const annotations = [METADATA_ARG, ...(trace.envTimers.length > 0 ? ['step', 'n_envs', 'labels', 'values_b64'] : [])];
    w.preIntern(names, categories, annotations);

    for (const p of trace.processes) w.addProcess(p.pid, p.name, p.labels);
    // Lane keys: lane 0 of a track is keyed by the track id, overflow lanes by ids past every track id.
    let nextKey = trace.tracks.reduce((m, t) => Math.max(m, t.id), host.synthetic ? host.track.id : 0) + 1;
    const laneKey = layout.lanes.map(({ track, index }) => {
      const key = index === 0 ? track.id : nextKey++;
      w.addTrack(track, index, key);
      return key;
    });
    if (host.synthetic) w.addTrack(host.track);
    const hostKey = host.track.id;
    w.metadata(hostKey, md, flowNamesJson(trace.flows));

    const instantOrder = sortedByTs(trace.instants, 'instant');
    const counterOrder = sortedByTs(trace.counters, 'counter sample');
    const timerOrder = sortedByTs(trace.envTimers, 'env timer sample');
    const open = new EndHeap(layout.endOf, layout.depthOf);
    const { order, tsOf, endOf, laneOf } = layout;
    const hasFlows = trace.flows.length > 0;
    const laneOfKey = laneKey;
    const n = slices.length;
    // Closes (SLICE_END) every open slice that ends at or before t: a slice ending where another begins is a sibling.
    const closeUntil = (t: number): void => {
      while (open.size > 0) {
        const i = open.peek();
        const end = endOf[i]!;
        if (end > t) return;
        open.pop();
        w.endAt(laneOfKey[laneOf[i]!]!, endOf, i);
      }
    };
    let si = 0, ii = 0, ci = 0, ti = 0;
    for (;;) {
      const tInstant = ii < instantOrder.length ? trace.instants[instantOrder[ii]!]!.ts : Infinity;
      const tCounter = ci < counterOrder.length ? trace.counters[counterOrder[ci]!]!.ts : Infinity;
      const tTimer = ti < timerOrder.length ? trace.envTimers[timerOrder[ti]!]!.ts : Infinity;
      const tOther = Math.min(tInstant, tCounter, tTimer);
      // The bulk: slice begins up to the next instant, counter or timer sample (begins first on ties).
      while (si < n) {
        const i = order[si]!;
        const ts = tsOf[i]!;
        if (ts > tOther) break;
        // closeUntil(ts), written out: passing the time to a call would box it (see PerfettoStreamWriter.beginAt).
        while (open.size > 0) {
          const j = open.peek();
          if (endOf[j]! > ts) break;
          open.pop();
          w.endAt(laneOfKey[laneOf[j]!]!, endOf, j);
        }
        const s = slices[i]!;
        w.beginAt(laneOfKey[laneOf[i]!]!, s.name, s.category, tsOf, i, s.args, hasFlows ? flowsOut.get(i) : undefined, hasFlows ? flowsIn.get(i) : undefined);
        open.push(i);
        si++;
        if (w.needsDrain) await w.drain();
      }
      closeUntil(tOther);
      if (tOther === Infinity) break;
      if (tInstant === tOther) {
        const k = instantOrder[ii++]!;
        const e = trace.instants[k]!;
        if (!byId.has(e.track)) throw new Error(`trace: instant ${k} ('${e.name}') is on unknown track ${e.track}`);
        w.instant(e.track, e.name, e.category, e.ts, e.args);
      } else if (tCounter === tOther) {
        const k = counterOrder[ci++]!;
        const c = trace.counters[k]!;
        if (!byId.has(c.track)) throw new Error(`trace: counter sample ${k} is on unknown track ${c.track}`);
        w.counter(c.track, c.ts, c.value);
      } else {
        w.envTimers(hostKey, trace.envTimers[timerOrder[ti++]!]!, md.timerLabels);
      }
      if (w.needsDrain) await w.drain();
    }
    await w.close();
  } catch (e) {
    await w.abort();
    throw e;
  } finally {
    releaseLayout(layout);
  }
}
