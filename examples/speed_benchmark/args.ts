/** The few flags the speed benchmarks take, so CI can run them small: --n-envs N --steps N --backend B. */
import { parseArgs } from 'node:util';

export interface BenchArgs {
  nEnvs: number;
  steps: number;
  backend: 'auto' | 'cpu' | 'gpu';
  profiling: boolean;
  mode: 0 | 1 | 2;
}

export function benchArgs(defaults: { nEnvs: number; steps: number; backend?: 'auto' | 'cpu' | 'gpu' }): BenchArgs {
  const { values } = parseArgs({
    options: {
      'n-envs': { type: 'string' }, steps: { type: 'string' }, backend: { type: 'string' },
      profiling: { type: 'boolean', default: false }, mode: { type: 'string' },
    },
  });
  const int = (name: string, v: string | undefined, fallback: number, min: number): number => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) { console.error(`--${name} needs a whole number >= ${min}, got '${v}'`); process.exit(2); }
    return n;
  };
  const backend = (values.backend ?? defaults.backend ?? 'gpu') as BenchArgs['backend'];
  if (!['auto', 'cpu', 'gpu'].includes(backend)) { console.error(`--backend must be auto, cpu or gpu, got '${backend}'`); process.exit(2); }
  const mode = int('mode', values.mode, 2, 0);
  if (mode > 2) { console.error('--mode must be 0, 1 or 2'); process.exit(2); }
  return {
    nEnvs: int('n-envs', values['n-envs'], defaults.nEnvs, 0),
    steps: int('steps', values.steps, defaults.steps, 1),
    backend, profiling: values.profiling ?? false, mode: mode as 0 | 1 | 2,
  };
}
