import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Diff extends GsprofCommand {
  static override summary = 'Per-op and per-kernel differences between two traces (HTA TraceDiff).';
  static override description = [
    'Counts and total durations of every op and kernel in the control and the test trace, marked added, deleted, increased or decreased, sorted by the size of the change. Works across formats (e.g. a PyTorch trace against a gsprof one).',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> diff before.pftrace after.pftrace',
    '<%= config.bin %> diff control.pt.trace.json test.pt.trace.json --limit 20 --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    control: Args.string({ description: 'control trace', required: true }),
    test: Args.string({ description: 'test trace', required: true }),
  };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    limit: Flags.integer({ description: 'rows to show', min: 1, default: 30 }),
    iteration: Flags.integer({ description: 'compare only ProfilerStep#K of both traces (HTA TraceDiff\'s control_iteration/test_iteration): CPU ops starting inside it, kernels launched from inside it', min: 0 }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Diff);
    const { diffReport } = await import('../views/diff.js');
    const view = await diffReport(args.control, args.test, { color: this.color, limit: flags.limit, iteration: flags.iteration });
    this.print(view.text);
    return view.data;
  }
}
