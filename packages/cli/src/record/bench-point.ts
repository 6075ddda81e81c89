/**
 * One point of `gsprof bench`, run in its own process (a fresh simulator and device per nEnvs, and a clean
 * exit when one runs out of memory): builds the scenario, warms up, times `steps` steps to a final sync, and
 * prints one JSON line.
 */
import { buildScenario } from '../scenarios/index.js';

export interface BenchPointInput {
  example: string;
  backend: 'auto' | 'cpu' | 'gpu';
  nEnvs: number;
  steps: number;
  warmup: number;
  performanceMode: boolean;
}

export interface BenchPoint {
  nEnvs: number;
  backend: string;
  buildSeconds: number;
  firstStepSeconds: number;
  stepSeconds: number;
  envStepsPerSecond: number;
  error?: string;
}

export async function runBenchPoint(input: BenchPointInput): Promise<BenchPoint> {
  const t0 = performance.now();
  const scenario = await buildScenario(input.example, {
    backend: input.backend, nEnvs: input.nEnvs, performanceMode: input.performanceMode, showFPS: false, quiet: true,
  });
  const built = performance.now();
  scenario.beforeStep?.(0);
  scenario.scene.step();
  await scenario.scene.sync();
  const first = performance.now();
  for (let i = 1; i < input.warmup; i++) { scenario.beforeStep?.(i); scenario.scene.step(); }
  await scenario.scene.sync();
  const start = performance.now();
  for (let i = 0; i < input.steps; i++) { scenario.beforeStep?.(i); scenario.scene.step(); }
  await scenario.scene.sync();
  const seconds = (performance.now() - start) / 1e3;
  return {
    nEnvs: input.nEnvs,
    backend: String(scenario.gs.backend),
    buildSeconds: (built - t0) / 1e3,
    firstStepSeconds: (first - built) / 1e3,
    stepSeconds: seconds / input.steps,
    envStepsPerSecond: (input.steps * Math.max(1, input.nEnvs)) / seconds,
  };
}

// Entry point when run as a child: argv[2] is the JSON input.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    const point = await runBenchPoint(JSON.parse(process.argv[2] ?? '{}') as BenchPointInput);
    process.stdout.write(`${JSON.stringify(point)}\n`);
    process.exit(0);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: (err as Error).message.split('\n')[0] })}\n`);
    process.exit(0);
  }
}
