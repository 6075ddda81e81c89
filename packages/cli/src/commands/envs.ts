import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Envs extends GsprofCommand {
  static override summary = 'Which envs cost the time: solver iterations and contacts per env, their resets and NaNs, and the steps to look at.';
  static override description = [
    'Reads the per-step physics counters (solver iterations, contacts, constraints, env resets), the per-env events (env reset, env nan, solver not converged) and, where recorded, the per-env solver timers of a sim-core recording. Lists the envs that cost the most with their reset/NaN history and the step numbers to look at on the timeline, a histogram across envs, the slowest steps with the env that had the most iterations in each, and the Pearson correlation of step time with the step\'s max solver iterations.',
    '--format json prints the whole result (totalResets at the top level); --format csv one row per listed env.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> envs out',
    '<%= config.bin %> envs out/run.pftrace --top 20',
    '<%= config.bin %> envs out --format csv > envs.csv',
  ];
  static override enableJsonFlag = true;
  static override args = { trace: Args.string({ description: 'a recording\'s trace (gsprof record), or a folder (its newest trace)', required: true }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    top: Flags.integer({ description: 'envs to list', min: 1, default: 10 }),
    format: Flags.string({ description: 'output format', options: ['table', 'json', 'csv'], default: 'table' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Envs);
    const { envsReport } = await import('../views/envs.js');
    const format = flags.format as 'table' | 'json' | 'csv';
    const view = await envsReport(args.trace, { color: this.color, top: flags.top, format });
    if (format === 'json' && !this.jsonEnabled()) {
      const { toJson } = await import('../render/json.js');
      process.stdout.write(`${toJson(view.data)}\n`);
    } else {
      this.print(view.text);
    }
    return view.data;
  }
}
