/** `gsprof convert`: import (any format gsprof reads), then export in the format the output name says. */
import type { StreamEvent } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { removingPartialsOnSignal } from './interrupt-write.js';
import { resolveTrace, withTrace } from './open-trace.js';
import { refuseOwnInput } from './own-input.js';

/** `threadTimesDropped`: slices and instants whose thread time (tts, tdur) a .pftrace output does not carry. */
export interface ConvertResult {
  input: string; output: string; format: 'perfetto' | 'chrome'; slices: number; counters: number; flows: number; envTimerSamples: number;
  threadTimesDropped: number;
}

export function outputFormat(path: string): 'perfetto' | 'chrome' {
  if (/\.(pftrace|perfetto-trace|pb)$/i.test(path)) return 'perfetto';
  if (/\.json(\.gz)?$/i.test(path)) return 'chrome';
  throw new CliError(path, 'unknown output format (use .pftrace for Perfetto, .json or .json.gz for Chrome JSON)');
}

export async function convertTrace(input: string, output: string): Promise<ConvertResult> {
  const format = outputFormat(output);
  input = resolveTrace(input);
  refuseOwnInput('convert', output, [input]);
  const { tableEvents } = await import('../convert/event-rows.js');
  const { writeChromeStream, writePerfettoStream } = await import('@gsprof/profiler');
  // Ctrl-C mid-write leaves the target as it was and no temporary file; the temporary database goes on exit.
  return removingPartialsOnSignal(async () => {
    // The tables are read in time order as they are written: memory stays bounded whatever the trace size.
    const counts = await withTrace(input, async (db) => {
      const trace = await tableEvents(db, input);
      const n: EventCounts = { slices: 0, counters: 0, flows: 0, envTimerSamples: 0, threadTimes: 0 };
      const counted = { ...trace, events: countEvents(trace.events, n) };
      if (format === 'perfetto') await writePerfettoStream(counted, output);
      else await writeChromeStream(counted, output);
      return n;
    }, { memoryLimit: CONVERT_DUCKDB_MEMORY });
    const { threadTimes, ...rest } = counts;
    const threadTimesDropped = format === 'perfetto' ? threadTimes : 0;
    if (threadTimesDropped > 0) {
      // A .pftrace holds thread time only as thread_time counters, which trace_processor also reads as counter
      // tracks: written that way, the trace would come back with counters it never had. Said, not silently lost.
      process.stderr.write(`gsprof: warning: ${output}: the thread time (tts, tdur) of ${threadTimesDropped} slices is not written: a .pftrace carries it only as thread_time counters; convert to .json to keep it\n`);
    }
    return { input, output, format, ...rest, threadTimesDropped };
  });
}

/**
 * DuckDB's memory limit for convert: its sort spills to disk past it, and the writer's own memory comes on top.
 * On the 1 GB benchmark trace (10M events) the event query alone took the process to 1.3 GB under the default
 * 1GB and to 0.7 GB under 512MB, at the same speed; the import fits in it too (docs/benchmarks.md).
 */
const CONVERT_DUCKDB_MEMORY = '512MB';

interface EventCounts { slices: number; counters: number; flows: number; envTimerSamples: number; threadTimes: number }

/** Passes the batches on, counting what convert reports. */
async function* countEvents(batches: AsyncIterable<readonly StreamEvent[]>, n: EventCounts): AsyncGenerator<readonly StreamEvent[]> {
  for await (const batch of batches) {
    for (const e of batch) {
      if ((e.kind === 'slice' || e.kind === 'instant') && e.thread !== undefined) n.threadTimes++;
      if (e.kind === 'slice') { n.slices++; n.flows += e.flowsOut?.length ?? 0; }
      else if (e.kind === 'counter') n.counters++;
      else if (e.kind === 'timers') n.envTimerSamples++;
    }
    yield batch;
  }
}
