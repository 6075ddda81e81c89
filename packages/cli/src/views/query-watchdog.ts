/**
 * The guard that makes `query`'s --timeout and --memory-limit hold for any statement. DuckDB checks its
 * interrupt between chunks and counts only its own buffers against memory_limit: one huge value (repeat('x',
 * 1.5e9)) runs on past the interrupt, and its copy into JavaScript, outside the limit, holds this thread for
 * a minute, and an orderly exit waits for it. So the watchdog has two parts. On this thread, every 100 ms: past
 * the timeout plus a grace period, or with the process's memory past the limit plus what it held before the
 * query, it prints one line and ends the process with SIGKILL, after telling the supervising process
 * (query-supervisor.ts), which then exits 2. When this thread is itself held (that copy), a watchdog thread does
 * the same 1 s later. The query's threads end with the process; the next gsprof
 * start removes the temporary database it leaves. A statement DuckDB stops by itself within the grace period
 * ends as before, with exit 2.
 */
import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CliError } from '../errors.js';
import { STOPPED_FD, SUPERVISED_ENV } from './query-supervisor.js';

/** Time DuckDB gets to honour its own interrupt before the process is ended. */
const GRACE_MS = 2000;

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** `--memory-limit` in bytes: a number and a unit as DuckDB reads them (512MB, 2GB, 1.5GiB); anything else is exit 2. */
export function memoryLimitBytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0) throw new CliError('--memory-limit', `'${text}' is not a size: give a number and a unit, e.g. 512MB, 2GB or 1.5GiB`);
  return Number(m[1]) * unit;
}

export interface Watchdog { stop(): void }

/** Why the query must stop now, or null: shared by both parts of the watchdog. */
function verdict(startedMs: number, timeoutS: number, graceMs: number, ceiling: number, memoryBytes: number, rss: number): string | null {
  if (timeoutS > 0 && Date.now() - startedMs > timeoutS * 1000 + graceMs) return `query stopped after its time limit of ${timeoutS} s (--timeout to change it)`;
  if (rss > ceiling) return `query stopped: it took more memory than its limit of ${(memoryBytes / 1e6).toFixed(0)} MB (--memory-limit to change it)`;
  return null;
}

/** The watchdog thread: the same checks a second later, then the line on stderr and SIGKILL to the process. */
const THREAD_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const verdict = ${verdict.toString()};
const w = workerData;
setInterval(() => {
  const why = verdict(w.startedMs, w.timeoutS, w.graceMs + 1000, w.ceiling + w.slackBytes, w.memoryBytes, process.memoryUsage.rss());
  if (why === null) return;
  writeSync(2, 'gsprof: query: ' + why + '\\n');
  if (w.supervised) writeSync(w.stoppedFd, 'stopped\\n');
  process.kill(process.pid, 'SIGKILL');
}, 100);
`;

/** Starts the watchdog for one query; `fail` prints the line and ends the process (tests pass their own). */
export function startWatchdog(timeoutS: number, memoryBytes: number, fail: (why: string) => void = endProcess): Watchdog {
  const startedMs = Date.now();
  const ceiling = process.memoryUsage.rss() + memoryBytes;
  const timer = setInterval(() => {
    const why = verdict(startedMs, timeoutS, GRACE_MS, ceiling, memoryBytes, process.memoryUsage.rss());
    if (why !== null) fail(why);
  }, 100);
  timer.unref();
  // The thread allows a little more memory too: this thread's own check, where it can run, ends more cleanly.
  const thread = new Worker(THREAD_SOURCE, { eval: true, workerData: {
    startedMs, timeoutS, graceMs: GRACE_MS, ceiling, memoryBytes, slackBytes: 256e6, supervised: SUPERVISED_ENV in process.env, stoppedFd: STOPPED_FD,
  } });
  thread.unref();
  return { stop: () => { clearInterval(timer); void thread.terminate(); } };
}

/**
 * The line, then SIGKILL to this process: a statement DuckDB has not stopped holds an orderly exit (its threads
 * are joined at teardown) for as long as it runs, which is what the limit is there to prevent.
 */
function endProcess(why: string): void {
  writeSync(2, `gsprof: query: ${why}\n`);
  if (SUPERVISED_ENV in process.env) writeSync(STOPPED_FD, 'stopped\n');
  process.kill(process.pid, 'SIGKILL');
}
