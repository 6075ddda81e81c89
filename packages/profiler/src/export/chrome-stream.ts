// An EventStream -> Chrome trace JSON, in bounded memory: each event is written as it arrives, a slice on the
// lane LaneAssigner gives it (an overflow lane is named when its first slice arrives), a flow's ends with the
// slices they leave and enter. Memory: one batch, the open slices and a byte batch.
import { ChromeEventWriter, ThreadIds } from './chrome-events.js';
import { hostThreadTrack } from './common.js';
import { TimeOrder, type EventStream, type StreamFlow } from './event-stream.js';
import { LaneAssigner, tracksById } from './layout.js';

export async function writeChromeStream(trace: EventStream, path: string): Promise<void> {
  const shell = { ...trace, slices: [], instants: [], counters: [], flows: [], envTimers: [] };
  const byId = tracksById(shell);
  const trackIndex = new Map(trace.tracks.map((t, i) => [t.id, i]));
  const host = hostThreadTrack(shell);
  const lanes = new LaneAssigner(trace.tracks);
  // A converted trace's overlapping slices stay on their thread's tid, as in the JSON they came from.
  const ids = new ThreadIds(true);
  const where = lanes.lanes.map(({ track, index }) => ids.assign(track, index));
  const whereBytes = where.map((w) => Buffer.from(`,${w}`));
  const hostWhere = host.synthetic ? ids.assign(host.track, 0) : where[lanes.laneOfTrack.get(host.track.id)!]!;

  const w = await ChromeEventWriter.open(path, trace.metadata, trace.tracks);
  try {
    w.processes(trace.processes, trace.tracks.concat(host.track));
    for (let l = 0; l < where.length; l++) w.thread(where[l]!, lanes.lanes[l]!.track, 0, l);
    if (host.synthetic) w.thread(hostWhere, host.track, 0, where.length);
    const flows = (ph: 's' | 'f', list: StreamFlow[] | undefined, at: string, ts: number): void => {
      if (list) for (const f of list) w.flow(ph, f.id, at, ts, f.category, f.name ?? f.category);
    };

    const order = new TimeOrder();
    for await (const batch of trace.events) {
      for (const e of batch) {
        const ts = order.check(e);
        if (e.kind === 'slice') {
          const t = trackIndex.get(e.track);
          if (t === undefined) throw new Error(`trace: slice '${e.name}' is on unknown track ${e.track}`);
          if (trace.tracks[t]!.kind === 'counter') throw new Error(`trace: slice '${e.name}' is on counter track ${e.track}`);
          const lane = lanes.place(t, ts, ts + e.dur);
          if (lane === where.length) {
            const { track, index } = lanes.lanes[lane]!;
            where.push(ids.assign(track, index));
            whereBytes.push(Buffer.from(`,${where[lane]}`));
            w.thread(where[lane]!, track, index, lane + (host.synthetic ? 1 : 0), true);
          }
          w.slice(e.category, e.name, whereBytes[lane]!, ts, e.dur, e.args, e.thread);
          flows('s', e.flowsOut, where[lane]!, ts);
          flows('f', e.flowsIn, where[lane]!, ts);
        } else if (e.kind === 'instant') {
          const lane = lanes.laneOfTrack.get(e.track);
          if (lane === undefined) throw new Error(`trace: instant '${e.name}' is on unknown track ${e.track}`);
          if (lanes.lanes[lane]!.track.kind === 'counter') throw new Error(`trace: instant '${e.name}' is on counter track ${e.track}`);
          const track = lanes.lanes[lane]!.track;
          w.instant(track, where[lane]!, e.name, e.category, ts, e.args, e.thread);
          // A flow event after a thread's instant at its ts binds to it (both readers); a process- or
          // global-scoped instant has no thread to put one on, so its flow ends are not written.
          if (!track.scope) {
            flows('s', e.flowsOut, where[lane]!, ts);
            flows('f', e.flowsIn, where[lane]!, ts);
          }
        } else if (e.kind === 'counter') {
          const track = byId.get(e.track);
          if (track?.kind !== 'counter') throw new Error(`trace: counter sample is on ${track ? 'non-counter' : 'unknown'} track ${e.track}`);
          w.counter(track, ts, e.value);
        } else {
          w.envTimers(hostWhere, e.sample);
        }
        if (w.full) await w.flush();
      }
    }
    await w.close();
  } catch (e) {
    await w.abort();
    throw e;
  }
}
