/**
 * `gsprof record -- <command...>`: runs a Node program with the instrumentation preload (`node --import`),
 * forwards its output, and reports the traces it wrote; `--nproc N` runs N ranks of it. SIGINT, SIGTERM and SIGHUP are passed on to the program,
 * which writes the trace of the steps recorded so far and exits; gsprof waits for that (a second signal, a
 * second later, kills it). With --nproc, the first rank to fail stops the others (SIGTERM, then SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from '@gsprof/dawn';
import { CliError } from '../errors.js';
import { encodeConfig, PRELOAD_ENV, type PreloadConfig } from '../preload/config.js';
import type { TraceFormat } from './handlers.js';
import type { ScheduleArgs } from './schedule-flags.js';
import { useFreshCache } from './fresh-cache.js';
import { recordHeldEvents } from './held-events.js';

export interface RecordProgramOptions {
  command: string[];
  schedule: ScheduleArgs;
  sync: boolean;
  profileMemory?: boolean;
  /** false: leave sim-core's per-step physics counters and per-env events out (--no-physics-counters). */
  physicsCounters?: boolean;
  stepsFrom: 'auto' | 'marks' | 'submits';
  outDir: string;
  format: TraceFormat;
  freshCache: boolean;
  /** --nproc: seconds between SIGTERM and SIGKILL for the other ranks after one fails (default 30). */
  termGraceS?: number;
}

export interface RecordProgramResult {
  command: string[];
  exitCode: number | null;
  signal: string | null;
  steps: number;
  stepMode: 'marks' | 'scene steps' | 'submits' | 'unknown';
  /** --steps-from auto: queue submits counted as steps before the program's first mark (they are not its steps). */
  submitStepsBeforeMark: number;
  devices: number;
  traces: string[];
}

/** The preload module next to this file (src/*.ts under the dev runner, dist/*.js when built). */
function preloadArgs(): { importArgs: string[] } {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith('.ts');
  const preload = new URL(`../preload/index.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  return { importArgs: fromSource ? ['--conditions=@gsprof/source', '--import', 'tsx', '--import', preload] : ['--import', preload] };
}

function isNode(word: string): boolean {
  const name = basename(word);
  return name === 'node' || word === process.execPath || /^node\d*(\.exe)?$/.test(name);
}

/** What the preload reports in its result file when the program ends. */
interface PreloadReport {
  steps?: number; stepMode?: 'marks' | 'scene steps' | 'submits'; submitStepsBeforeMark?: number; devices?: number; traces?: string[]; writeError?: string;
}

/** Copies a child's output to ours with a prefix on every line (the ranks of `--nproc` write at once). */
function prefixLines(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, prefix: string): Promise<void> {
  let rest = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    if (lines.length > 0) to.write(lines.map((l) => `${prefix}${l}\n`).join(''));
  });
  return new Promise((resolve) => {
    from.once('end', () => {
      if (rest) to.write(`${prefix}${rest}\n`);
      resolve();
    });
  });
}

interface ChildRun { code: number | null; signal: NodeJS.Signals | null; report: PreloadReport }

/** Runs the program once with the preload and the given extra environment, until it exits. */
async function runChild(options: RecordProgramOptions, config: PreloadConfig, extraEnv: NodeJS.ProcessEnv, linePrefix: string | null, children: Set<ChildProcess>): Promise<ChildRun> {
  const { importArgs } = preloadArgs();
  const [first, ...rest] = options.command as [string, ...string[]];
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, [PRELOAD_ENV]: encodeConfig(config) };
  let file: string;
  let args: string[];
  if (isNode(first)) {
    file = first === 'node' ? process.execPath : first;
    args = [...importArgs, ...rest];
  } else {
    // Not `node ...` (a script with a shebang, npx, tsx): every Node process it starts loads the preload.
    file = first;
    args = rest;
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} ${importArgs.join(' ')}`.trim();
  }
  const child = spawn(file, args, { stdio: linePrefix === null ? 'inherit' : ['inherit', 'pipe', 'pipe'], env });
  children.add(child);
  const copied = linePrefix === null ? [] : [prefixLines(child.stdout!, process.stdout, linePrefix), prefixLines(child.stderr!, process.stderr, linePrefix)];
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(new CliError(first, err.code === 'ENOENT' ? 'command not found' : err.message));
    });
    child.once('close', (c, s) => resolve({ code: c, signal: s }));
  }).finally(() => children.delete(child));
  await Promise.all(copied);
  let report: PreloadReport = {};
  try { report = JSON.parse(readFileSync(config.resultFile, 'utf8')) as PreloadReport; } catch { /* the program died before its exit hook */ }
  return { code, signal, report };
}

/** A second signal this long after the first is a second Ctrl-C (one Ctrl-C often arrives twice, from the
 * terminal and from a wrapper such as npx, milliseconds apart). */
const SECOND_SIGNAL_MS = 1000;

/** Signals to gsprof go to every program it started (each writes the trace of the steps recorded so far and
 * exits), and gsprof waits for them: a `kill` of gsprof alone never leaves a program running unrecorded. A second
 * signal (a second Ctrl-C) kills them with SIGKILL, for a program that ignores the first. */
async function forwardingSignals<T>(children: Set<ChildProcess>, interruptFile: string, body: (interrupted: () => boolean) => Promise<T>): Promise<T> {
  let firstAt: number | null = null;
  const forward = (signal: NodeJS.Signals): void => {
    if (firstAt !== null && Date.now() - firstAt >= SECOND_SIGNAL_MS) {
      for (const c of children) c.kill('SIGKILL');
      return;
    }
    firstAt ??= Date.now();
    try { writeFileSync(interruptFile, signal); } catch { /* the work folder is gone: the run is over */ }
    for (const c of children) c.kill(signal);
  };
  const forwarded: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of forwarded) process.on(s, forward);
  try {
    return await body(() => firstAt !== null);
  } finally {
    for (const s of forwarded) process.off(s, forward);
  }
}

function resultOf(options: RecordProgramOptions, run: ChildRun): RecordProgramResult {
  const { report } = run;
  if (report.writeError) throw new CliError('record', report.writeError);
  return {
    command: options.command,
    exitCode: run.code,
    signal: run.signal,
    steps: report.steps ?? 0,
    stepMode: report.stepMode ?? 'unknown',
    submitStepsBeforeMark: report.submitStepsBeforeMark ?? 0,
    devices: report.devices ?? 0,
    // Only the files the preload reports having written: whatever else appeared in the folder may be another
    // run's (two records into the same --out).
    traces: report.traces ?? [],
  };
}

function preloadConfig(options: RecordProgramOptions, resultFile: string, interruptFile: string): PreloadConfig {
  return {
    outDir: options.outDir,
    format: options.format,
    schedule: options.schedule,
    sync: options.sync,
    profileMemory: options.profileMemory ?? false,
    physicsCounters: options.physicsCounters ?? true,
    stepsFrom: options.stepsFrom,
    workerName: `${hostname()}_${process.pid}`,
    resultFile,
    interruptFile,
  };
}

/** One recording of the program (or of its ranks): the checks, the fresh driver cache, a work folder for the
 * preloads' result and interrupt files, and signal forwarding to every child, undone whatever happens. */
async function recording<T>(options: RecordProgramOptions,
  body: (work: string, children: Set<ChildProcess>, interrupt: string, interrupted: () => boolean) => Promise<T>): Promise<T> {
  if (options.command.length === 0) throw new CliError('record', 'no command after --');
  const cache = options.freshCache ? useFreshCache() : null;
  const work = makeTempDir('run');
  try {
    mkdirSync(options.outDir, { recursive: true });
    const children = new Set<ChildProcess>();
    const interrupt = join(work, 'interrupt');
    return await forwardingSignals(children, interrupt, (interrupted) => body(work, children, interrupt, interrupted));
  } finally {
    removeTempDir(work);
    cache?.dispose();
  }
}

export async function recordProgram(options: RecordProgramOptions): Promise<RecordProgramResult> {
  recordHeldEvents(); // a bad GSPROF_RECORD_HELD_EVENTS is refused here, in one line, not in the program
  const run = await recording(options, (work, children, interrupt) =>
    runChild(options, preloadConfig(options, join(work, 'result.json'), interrupt), {}, null, children));
  return resultOf(options, run);
}

export interface RecordRanksResult {
  /** The launch id every rank's trace carries (distributedInfo.job_id). */
  jobId: string;
  worldSize: number;
  ranks: Array<RecordProgramResult & { rank: number }>;
  /** The rank that failed (non-zero exit or a signal) first, when one did. */
  firstFailed: number | null;
  /** How many ranks were still running then and were stopped (SIGTERM, then SIGKILL after the grace period). */
  stoppedRanks: number;
}

/** Default seconds between SIGTERM and SIGKILL for the ranks still running after one fails (torchrun's 30). */
export const DEFAULT_TERM_GRACE_S = 30;

const failedRun = (run: ChildRun): boolean => run.signal !== null || (run.code !== null && run.code !== 0);

/** A free TCP port on this machine, for MASTER_PORT (a program written for torchrun may open it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `record --nproc N -- <command>`: N copies of the program at once, as `torchrun --standalone --nproc-per-node N`
 * starts them: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR/MASTER_PORT, and each on its own
 * adapter (GSPROF_ADAPTER = LOCAL_RANK) unless GSPROF_ADAPTER is set. Each rank writes its own trace,
 * `<host>_<gsprof pid>.rank<k>.<time>.pftrace`, with distributedInfo; their output is prefixed `[rank k] `.
 */
export async function recordRanks(options: RecordProgramOptions, nproc: number): Promise<RecordRanksResult> {
  recordHeldEvents();
  const jobId = `${hostname()}_${process.pid}_${Date.now()}`;
  const port = process.env.MASTER_PORT ?? String(await freePort());
  // As torchrun: when a rank fails, the others (blocked in a collective, say) get SIGTERM, then SIGKILL after the
  // grace period. Not after Ctrl-C: then every rank is already writing its trace and exiting.
  let firstFailed: number | null = null;
  let stoppedRanks = 0;
  let killTimer: NodeJS.Timeout | undefined;
  const runs = await recording(options, async (work, children, interrupt, interrupted) => {
    const stopOthers = (): void => {
      stoppedRanks = children.size;
      for (const c of children) c.kill('SIGTERM');
      killTimer = setTimeout(() => { for (const c of children) c.kill('SIGKILL'); }, (options.termGraceS ?? DEFAULT_TERM_GRACE_S) * 1000);
      killTimer.unref();
    };
    try {
      return await Promise.all(Array.from({ length: nproc }, async (_, rank) => {
        const env: NodeJS.ProcessEnv = {
          RANK: String(rank), LOCAL_RANK: String(rank), WORLD_SIZE: String(nproc), LOCAL_WORLD_SIZE: String(nproc),
          GROUP_RANK: '0', MASTER_ADDR: process.env.MASTER_ADDR ?? '127.0.0.1', MASTER_PORT: port, GSPROF_JOB_ID: jobId,
          GSPROF_ADAPTER: process.env.GSPROF_ADAPTER ?? String(rank),
        };
        const run = await runChild(options, preloadConfig(options, join(work, `result-${rank}.json`), interrupt), env, `[rank ${rank}] `, children);
        if (firstFailed === null && failedRun(run) && !interrupted()) {
          firstFailed = rank;
          stopOthers();
        }
        return run;
      }));
    } finally {
      clearTimeout(killTimer);
    }
  });
  return { jobId, worldSize: nproc, ranks: runs.map((r, rank) => ({ rank, ...resultOf(options, r) })), firstFailed, stoppedRanks };
}
