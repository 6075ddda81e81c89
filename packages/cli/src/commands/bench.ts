import { Flags } from '@oclif/core';
import { GsprofCommand } from '../base.js';
import { CliError } from '../errors.js';

export default class Bench extends GsprofCommand {
  static override summary = 'Scaling sweep: env-steps/s against nEnvs, as a table and a terminal chart.';
  static override description = [
    'Runs the example once per nEnvs (each in a fresh process, so every point compiles and allocates on its own), warms up, then times --steps steps to a final sync. The sweep stops at the first nEnvs that fails (out of memory or beyond the device\'s buffer limits) and says why. No profiler is attached: these are the numbers to compare with Genesis\' FPS headlines.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> bench --example franka --backend gpu --n-envs 1..32768',
    '<%= config.bin %> bench --example anymal_c --backend cpu --n-envs 64,256,1024 --steps 50',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    example: Flags.string({ description: 'built-in scenario', options: ['franka', 'anymal_c', 'timers'], default: 'franka' }),
    backend: Flags.string({ description: 'simulation backend (auto: a hardware WebGPU adapter if there is one, else the CPU)', options: ['auto', 'cpu', 'gpu'], default: 'auto' }),
    'n-envs': Flags.string({ description: 'sweep: from..to (doubling) or a comma list', default: '1..4096' }),
    steps: Flags.integer({ description: 'timed steps per point', min: 1, default: 100 }),
    warmup: Flags.integer({ description: 'untimed steps per point (the first compiles)', min: 1, default: 10 }),
    'performance-mode': Flags.boolean({ description: 'bake shapes into the kernels', default: false }),
    html: Flags.string({ description: 'also write the sweep as a self-contained HTML page (charts of env-steps/s and step time against nEnvs)' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(Bench);
    const { parseSweep } = await import('../render/ranges.js');
    const sweep = parseSweep(flags['n-envs']);
    const { runBench } = await import('../record/bench.js');
    const { thousands } = await import('../render/format.js');
    const result = await runBench({
      example: flags.example, backend: flags.backend as 'auto' | 'cpu' | 'gpu', steps: flags.steps, warmup: flags.warmup,
      performanceMode: flags['performance-mode'], sweep,
      onPoint: (p) => { if (!this.jsonEnabled()) process.stderr.write(`nEnvs ${p.nEnvs}: ${thousands(p.envStepsPerSecond, 0)} env-steps/s\n`); },
    });
    // Not one point measured: a failure, not an empty table with exit 0.
    if (result.points.length === 0 && result.stoppedAt) throw new CliError(`--n-envs ${result.stoppedAt.nEnvs}`, result.stoppedAt.reason);
    const { renderBench } = await import('../views/bench.js');
    this.print(renderBench(result, { color: this.color, example: flags.example }));
    if (flags.html !== undefined) {
      const { benchPage } = await import('../render/html/bench-page.js');
      const { writeFileAtomic } = await import('@gsprof/profiler');
      await writeFileAtomic(flags.html, benchPage(result, { example: flags.example, steps: flags.steps, warmup: flags.warmup }));
      if (!this.jsonEnabled()) process.stderr.write(`wrote ${flags.html}\n`);
    }
    return result;
  }
}
