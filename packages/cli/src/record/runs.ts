/**
 * `record --runs N`: N independent runs, each in a fresh process (its own JIT, caches, allocator and CPU
 * placement), merged into one baseline. compare treats runs, not steps, as samples: steps of one process are
 * not independent.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from '@gsprof/dawn';
import type { Baseline } from '@gsprof/profiler';
import { CliError } from '../errors.js';

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

/** The arguments without the flags `--runs` replaces per run (both `--flag value` and `--flag=value`). */
export function argsWithout(argv: string[], flags: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (flags.includes(a)) { i++; continue; }
    if (flags.some((f) => a.startsWith(`${f}=`))) continue;
    out.push(a);
  }
  return out;
}

/** Flags go before a `--` (everything after it is the program's). */
function withFlagsFirst(args: string[], flags: string[]): string[] {
  const dashes = args.indexOf('--');
  return dashes < 0 ? [...args, ...flags] : [...args.slice(0, dashes), ...flags, ...args.slice(dashes)];
}

export interface RunsResult { runs: number; baseline: string; outDirs: string[]; envStepsPerSecond: number[] }

export async function recordRuns(argv: string[], runs: number, outDir: string, baselineOut: string, log: (line: string) => void): Promise<RunsResult> {
  const { mergeBaselines, readBaseline, traceStats, writeBaseline } = await import('@gsprof/profiler');
  const { median } = traceStats;
  const base = argsWithout(argv, ['--runs', '--out', '--baseline-out', '--json']).filter((a) => a !== '--json');
  const work = makeTempDir('runs');
  const outDirs: string[] = [];
  const rates: number[] = [];
  const baselines: Baseline[] = [];
  try {
    for (let k = 1; k <= runs; k++) {
      const dir = join(outDir, `run-${k}`);
      mkdirSync(dir, { recursive: true });
      const file = join(work, `run-${k}.json`);
      const args = [BIN, 'record', ...withFlagsFirst(base, ['--runs', '1', '--no-fps', '--out', dir, '--baseline-out', file])];
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let o = '';
        let e = '';
        child.stdout.on('data', (d: Buffer) => { o += d.toString(); });
        child.stderr.on('data', (d: Buffer) => { e += d.toString(); });
        child.once('error', reject);
        child.once('exit', (c) => resolve({ code: c, stdout: o, stderr: e }));
      });
      if (code !== 0) {
        const why = stderr.split('\n').find((l) => l.startsWith('gsprof:')) ?? `exit ${code}`;
        throw new CliError('record --runs', `run ${k} of ${runs} failed: ${why}`);
      }
      void stdout; // the program's own output (record -- <program>) is not ours to print N times
      const baseline = await readBaseline(file);
      // The same number compare will use: the run's median step time.
      const stepNs = median(baseline.runs[0]?.steps ?? []);
      const nEnvs = Math.max(1, Number(baseline.config.nEnvs ?? 1));
      const rate = (nEnvs * 1e9) / stepNs;
      rates.push(rate);
      baselines.push(baseline);
      outDirs.push(dir);
      log(`run ${k}/${runs}: median step ${(stepNs / 1e6).toFixed(3)} ms, ${Number.isFinite(rate) ? Math.round(rate).toLocaleString('en-US') : '?'} env-steps/s (${dir})`);
    }
    const merged = mergeBaselines(baselines);
    await writeBaseline(baselineOut, merged);
    return { runs, baseline: baselineOut, outDirs, envStepsPerSecond: rates };
  } finally {
    removeTempDir(work);
  }
}
