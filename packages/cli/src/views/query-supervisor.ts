/**
 * `gsprof query` runs in a child process that this one waits on, so that a query its watchdog stops exits 2 with
 * its one line, as every refusal does. The watchdog (query-watchdog.ts) can only end its own process by SIGKILL:
 * any orderly exit waits for the DuckDB statement it stops (its threads are joined at teardown), and a killed
 * process reads as 137. So the child says on an extra pipe that it is stopping the query, then kills itself; this
 * process turns that death into exit 2. Any other end of the child is passed on as it was (its exit code, or
 * 128 + the signal). The supervisor loads nothing but child_process: it adds one Node start (~50 ms) to a query.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** Set in the child: it is supervised, and says on STOPPED_FD when its watchdog stops the query. */
export const SUPERVISED_ENV = 'GSPROF_QUERY_SUPERVISED';
export const STOPPED_FD = 3;

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs `node <script> <args>` as the supervised child and ends this process as the child ended: with its exit
 * code, with exit 2 where its watchdog stopped the query, or by the signal that ended it (re-raised here).
 */
export async function superviseQuery(script: string, args: readonly string[]): Promise<void> {
  const end = await new Promise<{ code: number } | { signal: NodeJS.Signals }>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      env: { ...process.env, [SUPERVISED_ENV]: '1' },
    });
    let stopped = false;
    child.stdio[STOPPED_FD]?.on('data', () => { stopped = true; });
    // Ctrl-C reaches both processes through the terminal; a signal sent to this one alone is passed on. Either
    // way the child decides how it ends, and this process ends as it did.
    const forward = (signal: NodeJS.Signals): void => { child.kill(signal); };
    for (const s of FORWARDED) process.on(s, forward);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      if (signal === 'SIGKILL' && stopped) resolve({ code: 2 });
      else if (signal) resolve({ signal });
      else resolve({ code: code ?? 1 });
    });
  });
  if ('code' in end) {
    process.exitCode = end.code;
    return;
  }
  process.kill(process.pid, end.signal);
  // a signal this process ignores or handles still ends it as the child ended
  process.exitCode = 128 + (constants.signals[end.signal] ?? 0);
}
