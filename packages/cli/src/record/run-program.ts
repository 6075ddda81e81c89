/**
 * `gsprof record -- <command...>`: runs a Node program with the instrumentation preload (`node --import`),
 * forwards its output, and reports the traces it wrote. SIGINT, SIGTERM and SIGHUP are passed on to the program,
 * which writes the trace of the steps recorded so far and exits; gsprof waits for that.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../errors.js';
import { encodeConfig, PRELOAD_ENV, type PreloadConfig } from '../preload/config.js';
import type { TraceFormat } from './handlers.js';
import type { ScheduleArgs } from './schedule-flags.js';
import { useFreshCache } from './fresh-cache.js';

export interface RecordProgramOptions {
  command: string[];
  schedule: ScheduleArgs;
  sync: boolean;
  profileMemory?: boolean;
  stepsFrom: 'auto' | 'marks' | 'submits';
  outDir: string;
  format: TraceFormat;
  freshCache: boolean;
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

export async function recordProgram(options: RecordProgramOptions): Promise<RecordProgramResult> {
  if (options.command.length === 0) throw new CliError('record', 'no command after --');
  const cache = options.freshCache ? useFreshCache() : null;
  const work = mkdtempSync(join(tmpdir(), 'gsprof-run-'));
  try {
    mkdirSync(options.outDir, { recursive: true });
    const resultFile = join(work, 'result.json');
    const config: PreloadConfig = {
      outDir: options.outDir,
      format: options.format,
      schedule: options.schedule,
      sync: options.sync,
      profileMemory: options.profileMemory ?? false,
      stepsFrom: options.stepsFrom,
      workerName: `${hostname()}_${process.pid}`,
      resultFile,
    };
    const { importArgs } = preloadArgs();
    const [first, ...rest] = options.command as [string, ...string[]];
    const env: NodeJS.ProcessEnv = { ...process.env, [PRELOAD_ENV]: encodeConfig(config) };
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
    const child = spawn(file, args, { stdio: 'inherit', env });
    // Signals to gsprof go to the program (which writes the trace of the steps recorded so far and exits) and
    // gsprof waits for it: a `kill` of gsprof alone never leaves the program running unrecorded.
    const forward = (signal: NodeJS.Signals): void => { child.kill(signal); };
    const forwarded: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const s of forwarded) process.on(s, forward);
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        reject(new CliError(first, err.code === 'ENOENT' ? 'command not found' : err.message));
      });
      child.once('exit', (c, s) => resolve({ code: c, signal: s }));
    }).finally(() => { for (const s of forwarded) process.off(s, forward); });
    let report: { steps?: number; stepMode?: 'marks' | 'scene steps' | 'submits'; submitStepsBeforeMark?: number; devices?: number; traces?: string[]; writeError?: string } = {};
    try { report = JSON.parse(readFileSync(resultFile, 'utf8')) as typeof report; } catch { /* the program died before its exit hook */ }
    if (report.writeError) throw new CliError('record', report.writeError);
    return {
      command: options.command,
      exitCode: code,
      signal,
      steps: report.steps ?? 0,
      stepMode: report.stepMode ?? 'unknown',
      submitStepsBeforeMark: report.submitStepsBeforeMark ?? 0,
      devices: report.devices ?? 0,
      // Only the files the preload reports having written: whatever else appeared in the folder may be another
      // run's (two records into the same --out).
      traces: report.traces ?? [],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    cache?.dispose();
  }
}
