import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Timers extends GsprofCommand {
  static override summary = 'Per-env solver timers: Genesis\' three panels and a histogram of per-env solve time.';
  static override description = [
    'Plots, as Genesis\' examples/speed_benchmark/timers.py does, (1) the last recorded step per env, (2) the running mean per env, and (3) the running mean of the per-step ascending-sorted env values (the average distribution curve), then a histogram of per-env solve time and the slowest envs. Charts are downsampled to the terminal width. Solve time in ns exists for CPU-backend recordings; for GPU recordings (WGSL has no shader clock) the panels use the exact counts instead (solver iterations by default).',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> timers out/timers/host_1.1764700000000000000.pftrace',
    '<%= config.bin %> timers out/timers/run.pftrace --envs 0-7',
    '<%= config.bin %> timers out/gpu/run.pftrace --slot iterations',
  ];
  static override enableJsonFlag = true;
  static override args = { trace: Args.string({ description: 'trace file with per-env timers (gsprof record), or a folder (its newest trace)', required: true }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    envs: Flags.string({ description: 'envs to draw in the per-env panels, e.g. 0-7 or 0,3,9 (default: all)' }),
    slot: Flags.string({ description: 'timer slot (name or index; default: solve_ns when measured, else iterations)' }),
    height: Flags.integer({ description: 'chart height in lines', min: 3, default: 10 }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Timers);
    const { parseIndexRange } = await import('../render/ranges.js');
    const envs = flags.envs ? parseIndexRange(flags.envs) : undefined;
    const { timersReport } = await import('../views/timers.js');
    const view = await timersReport(args.trace, { color: this.color, ...(envs ? { envs } : {}), ...(flags.slot ? { slot: flags.slot } : {}), height: flags.height });
    this.print(view.text);
    return view.data;
  }
}
