// TraceModel -> Chrome trace JSON in PyTorch/Kineto's object form, streamed through a ChromeEventWriter
// (chrome-events.ts): metadata, then every slice in start order, instants, counters, flows and timers.
import type { TraceModel } from '../model/trace.js';
import { ChromeEventWriter, ThreadIds } from './chrome-events.js';
import { hostThreadTrack } from './common.js';
import { formatMicros } from './json-batch.js';
import { layoutSlices, releaseLayout, sortedByTs, tracksById } from './layout.js';

export { formatMicros };

export async function writeChromeTraceFile(trace: TraceModel, path: string): Promise<void> {
  const byId = tracksById(trace);
  const host = hostThreadTrack(trace);
  const layout = layoutSlices(trace, byId);
  const lanes = host.synthetic ? [...layout.lanes, { track: host.track, index: 0 }] : layout.lanes;
  const hostLane = host.synthetic ? lanes.length - 1 : layout.laneOfTrack.get(host.track.id)!;
  const ids = new ThreadIds();
  const where = lanes.map(({ track, index }) => ids.assign(track, index));
  const slices = trace.slices;

  const w = await ChromeEventWriter.open(path, trace.metadata, trace.tracks);
  try {
    w.processes(trace.processes, trace.tracks.concat(host.track));
    for (let l = 0; l < lanes.length; l++) w.thread(where[l]!, lanes[l]!.track, lanes[l]!.index, l);
    if (w.full) await w.flush();

    // The hot loop: one X event per slice.
    const whereBytes = where.map((w) => Buffer.from(`,${w}`));
    for (let k = 0; k < layout.order.length; k++) {
      const i = layout.order[k]!;
      const s = slices[i]!;
      w.slice(s.category, s.name, whereBytes[layout.laneOf[i]!]!, s.ts, s.dur, s.args);
      if (w.full) await w.flush();
    }

    const instantOrder = sortedByTs(trace.instants, 'instant');
    for (let k = 0; k < instantOrder.length; k++) {
      const e = trace.instants[instantOrder[k]!]!;
      const lane = layout.laneOfTrack.get(e.track);
      if (lane === undefined) throw new Error(`trace: instant ${instantOrder[k]} ('${e.name}') is on unknown track ${e.track}`);
      if (lanes[lane]!.track.kind === 'counter') throw new Error(`trace: instant ${instantOrder[k]} ('${e.name}') is on counter track ${e.track}`);
      w.instant(lanes[lane]!.track, where[lane]!, e.name, e.category, e.ts, e.args);
      if (w.full) await w.flush();
    }

    const counterOrder = sortedByTs(trace.counters, 'counter sample');
    for (let k = 0; k < counterOrder.length; k++) {
      const c = trace.counters[counterOrder[k]!]!;
      const track = byId.get(c.track);
      if (track?.kind !== 'counter') throw new Error(`trace: counter sample ${counterOrder[k]} is on ${track ? 'non-counter' : 'unknown'} track ${c.track}`);
      w.counter(track, c.ts, c.value);
      if (w.full) await w.flush();
    }

    for (let k = 0; k < trace.flows.length; k++) {
      const f = trace.flows[k]!;
      const from = slices[f.fromSlice], to = slices[f.toSlice];
      if (!from || !to) throw new Error(`trace: flow ${k} (id ${f.id}) refers to missing slice ${from ? f.toSlice : f.fromSlice}`);
      w.flow('s', f.id, where[layout.laneOf[f.fromSlice]!]!, from.ts, f.category, f.name ?? f.category);
      w.flow('f', f.id, where[layout.laneOf[f.toSlice]!]!, to.ts, f.category, f.name ?? f.category);
      if (w.full) await w.flush();
    }

    const timerOrder = sortedByTs(trace.envTimers, 'env timer sample');
    for (let k = 0; k < timerOrder.length; k++) {
      w.envTimers(where[hostLane]!, trace.envTimers[timerOrder[k]!]!);
      if (w.full) await w.flush();
    }
    await w.close();
  } catch (e) {
    await w.abort();
    throw e;
  } finally {
    releaseLayout(layout);
  }
}
