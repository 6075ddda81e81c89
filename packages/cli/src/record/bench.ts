/** `gsprof bench`: a scaling sweep over nEnvs, one child process per point. Stops at the first point that
 * fails (out of memory, beyond the device's buffer limits) and reports why. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchPoint, BenchPointInput } from './bench-point.js';

export interface BenchOptions extends Omit<BenchPointInput, 'nEnvs'> {
  sweep: number[];
  onPoint?: (point: BenchPoint) => void;
}

export interface BenchResult {
  points: BenchPoint[];
  stoppedAt?: { nEnvs: number; reason: string };
}

function childArgs(): { script: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith('.ts');
  const script = fileURLToPath(new URL(`./bench-point.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return { script, execArgv: fromSource ? ['--conditions=@gsprof/source', '--import', 'tsx'] : [] };
}

async function runChild(input: BenchPointInput): Promise<BenchPoint> {
  const { script, execArgv } = childArgs();
  return await new Promise<BenchPoint>((resolve) => {
    const child = spawn(process.execPath, [...execArgv, script, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('close', (code, signal) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        const parsed = JSON.parse(line) as Partial<BenchPoint> & { error?: string };
        if (parsed.error === undefined && parsed.envStepsPerSecond !== undefined) { resolve(parsed as BenchPoint); return; }
        resolve(failed(input, parsed.error ?? 'no result'));
      } catch {
        const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
        resolve(failed(input, `${why}${err.trim() ? `: ${err.trim().split('\n').pop()}` : ''}`));
      }
    });
  });
}

function failed(input: BenchPointInput, error: string): BenchPoint {
  return { nEnvs: input.nEnvs, backend: input.backend, buildSeconds: NaN, firstStepSeconds: NaN, stepSeconds: NaN, envStepsPerSecond: NaN, error };
}

export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const points: BenchPoint[] = [];
  for (const nEnvs of options.sweep) {
    const { sweep: _s, onPoint: _o, ...rest } = options;
    const point = await runChild({ ...rest, nEnvs });
    if (point.error) return { points, stoppedAt: { nEnvs, reason: point.error } };
    points.push(point);
    options.onPoint?.(point);
  }
  return { points };
}
