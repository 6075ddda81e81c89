/** `gsprof merge`: the traces of a multi-process run as one timeline, one process per rank, clocks aligned. */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClockAlignmentPlan, StreamPart, TraceDb } from '@gsprof/profiler';
import { CliError } from '../errors.js';
import { duration, thousands } from '../render/format.js';
import { outputFormat } from './convert.js';
import { isSameFile, refuseOwnInput } from './own-input.js';
import { withTrace } from './open-trace.js';
import { removingPartialsOnSignal } from './interrupt-write.js';
import { newestRankRun, rankOf, rankRunLine } from './rank-traces.js';

export interface MergeResult {
  output: string;
  format: 'perfetto' | 'chrome';
  ranks: Array<{ rank: number; trace: string; slices: number; shiftNs: number }>;
  alignment: ClockAlignmentPlan;
  text: string;
}

interface RankInput { path: string; rank: number }

/**
 * The traces to merge: a folder's newest multi-rank run (its ranks known from the kept results), or the files
 * given, checked for being files and distinct; their ranks are read once they are open (checkRanks).
 */
function inputsOf(inputs: string[]): Promise<{ header: string | null; traces: RankInput[] } | { files: string[] }> {
  if (inputs.length === 1 && statSync(inputs[0]!, { throwIfNoEntry: false })?.isDirectory()) {
    return newestRankRun(inputs[0]!).then((run) => {
      if (!run) throw new CliError(inputs[0]!, 'has no traces of a multi-process run (rank traces, with distributedInfo); name the trace files to merge instead');
      return { header: rankRunLine(run), traces: run.ranks.map((r) => ({ path: r.path, rank: r.rank })) };
    });
  }
  for (const [i, path] of inputs.entries()) {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) throw new CliError(path, 'no such file');
    if (!st.isFile()) throw new CliError(path, 'not a trace file (give one folder, or trace files)');
    const twice = inputs.slice(0, i).find((earlier) => isSameFile(earlier, path));
    if (twice !== undefined) throw new CliError(path, `is the same file as ${twice}: merge takes each trace once`);
  }
  return Promise.resolve({ files: inputs });
}

/**
 * The ranks of the files given, from their open databases (a trace without a rank, from a process started on
 * its own, takes its position among the files): refused when they come from different jobs or two share a
 * rank; the header marks a set that does not cover the job's world size. Returns the indices in rank order.
 */
async function checkRanks(files: readonly string[], dbs: readonly TraceDb[]): Promise<{ header: string | null; order: number[]; ranks: number[] }> {
  const jobs = new Map<string, string>();
  let worldSize = 0;
  const ranks: number[] = [];
  for (const [i, path] of files.entries()) {
    const r = await rankOf(dbs[i]!);
    if (r?.jobId) jobs.set(r.jobId, path);
    worldSize = Math.max(worldSize, r?.worldSize ?? 0);
    ranks.push(r?.rank ?? i);
  }
  // Ranks of different launches share nothing but their numbers: merged, they would read as one job.
  if (jobs.size > 1) throw new CliError('merge', `the traces come from ${jobs.size} different jobs (${[...jobs.entries()].map(([id, p]) => `${id}: ${p}`).join('; ')}): merge takes the ranks of one job`);
  const seen = new Map<number, string>();
  for (const [i, rank] of ranks.entries()) {
    const other = seen.get(rank);
    if (other !== undefined) throw new CliError(files[i]!, `is rank ${rank}, as ${other} is: merge takes one trace per rank`);
    seen.set(rank, files[i]!);
  }
  const missing = Array.from({ length: worldSize }, (_, k) => k).filter((k) => !seen.has(k));
  const header = missing.length > 0 ? `Incomplete: ${files.length} of ${worldSize} ranks (missing rank ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', ...' : ''})` : null;
  return { header, order: ranks.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]!), ranks };
}

/** DuckDB's memory for each rank's database, so that all of them together stay near convert's 512MB-1GB. */
function perRankMemory(ranks: number): string {
  return `${Math.max(128, Math.floor(1024 / ranks))}MB`;
}

/** Opens every trace (nested withTrace calls), runs `fn` on them all, then closes them. */
async function withTraces<T>(paths: readonly string[], memoryLimit: string, fn: (dbs: TraceDb[]) => Promise<T>): Promise<T> {
  const open = async (k: number, dbs: TraceDb[]): Promise<T> => (k === paths.length
    ? fn(dbs)
    : withTrace(paths[k]!, (db) => open(k + 1, [...dbs, db]), { memoryLimit }));
  return open(0, []);
}

/**
 * Merges the ranks' traces as they are read: each rank's tables are read in time order (as convert reads them)
 * and the streams merged into the writer, so memory holds one batch per rank, never a whole trace.
 */
export async function mergeRanks(inputs: string[], output: string): Promise<MergeResult> {
  const format = outputFormat(output);
  const given = await inputsOf(inputs);
  const paths = 'files' in given ? given.files : given.traces.map((t) => t.path);
  refuseOwnInput('merge', output, paths);
  const { commonFlowIds, tableEvents } = await import('../convert/event-rows.js');
  const { mergeEventStreams, planAlignment, writeChromeStream, writePerfettoStream } = await import('@gsprof/profiler');
  // Each trace is opened once: the files' ranks are read from the databases the merge then streams.
  const { header, traces, parts, plan, counts } = await withTraces(paths, perRankMemory(paths.length), async (opened) => {
    let header: string | null;
    let traces: RankInput[];
    let dbs: TraceDb[];
    if ('files' in given) {
      const checked = await checkRanks(given.files, opened);
      header = checked.header;
      traces = checked.order.map((i) => ({ path: given.files[i]!, rank: checked.ranks[i]! }));
      dbs = checked.order.map((i) => opened[i]!);
    } else {
      ({ header, traces } = given);
      dbs = opened;
    }
    // Ctrl-C while it writes leaves no output and no temporary file.
    return removingPartialsOnSignal(async () => {
      // The sources go into the merged trace as absolute paths: a folder holding it stands for the run it
      // merged, whatever folder summary is run from.
      const streams: StreamPart[] = [];
      for (const [i, t] of traces.entries()) {
        const db = dbs[i]!;
        streams.push({ rank: t.rank, source: resolve(t.path), stream: await tableEvents(db, t.path), commonFlowIds: () => commonFlowIds(db) });
      }
      const alignment = planAlignment(streams.map((p) => ({ rank: p.rank, metadata: p.stream.metadata })));
      const merged = await mergeEventStreams(streams, alignment);
      if (format === 'perfetto') await writePerfettoStream(merged.stream, output);
      else await writeChromeStream(merged.stream, output);
      return { header, traces, parts: streams.map((p) => ({ rank: p.rank, metadata: p.stream.metadata })), plan: alignment, counts: merged.counts };
    });
  });

  const ranks = parts.map((p, i) => ({ rank: p.rank, trace: traces[i]!.path, slices: counts.slices[i]!, shiftNs: plan.ranks.find((r) => r.rank === p.rank)!.shiftNs }));
  const lines = header ? [header] : [];
  lines.push(`Merged ${parts.length} trace(s) into ${output}, one process per rank:`);
  for (const [i, r] of ranks.entries()) {
    const md = parts[i]!.metadata;
    const moved = plan.method === 'monotonic' ? `; ${r.shiftNs >= 0 ? '+' : '-'}${duration(Math.abs(r.shiftNs))} from its own wall clock` : '';
    lines.push(`  rank ${r.rank}: ${r.trace} (${md.hostname || 'host ?'}, pid ${md.pid}): ${thousands(r.slices)} slices${moved}`);
  }
  const bound = plan.errorBoundNs === null ? 'error bound unknown' : `error bound +-${duration(plan.errorBoundNs)}`;
  lines.push(`Clocks: ${plan.method}, ${bound}: ${plan.note}.`);
  if (plan.method === 'monotonic') {
    const worst = ranks.reduce((m, r) => Math.max(m, Math.abs(r.shiftNs)), 0);
    lines.push(`  (the wall clocks alone would have placed the ranks up to ${duration(worst)} off)`);
  }
  const timers = counts.envTimerSamples;
  if (timers > 0) lines.push(`note: the per-env solver timers (${thousands(timers)} samples) stay in the rank traces: run \`gsprof timers\` on a rank's trace`);
  return { output, format, ranks, alignment: plan, text: lines.join('\n') };
}
