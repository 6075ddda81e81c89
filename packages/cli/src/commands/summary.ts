import { Args, Flags } from '@oclif/core';
import { GsprofCommand, strictFlag } from '../base.js';

export default class Summary extends GsprofCommand {
  static override summary = 'Kernel table (nsys columns), step and FPS lines, and compile time of a trace.';
  static override description = [
    'Reads any trace gsprof can import (its own .pftrace and .json[.gz], PyTorch/Kineto JSON, Perfetto SDK traces) and prints, per GPU queue or stream, `nsys stats` cuda_gpu_kern_sum columns sorted by total time: Time (%), Total Time (ns), Instances, Avg, Med, Min, Max, StdDev, Name. Below it: the ProfilerStep statistics, FPS and env-steps/s when the run recorded nEnvs, and the time spent compiling.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> summary out/host_4242.1764700000000000000.pftrace',
    '<%= config.bin %> summary trace.pt.trace.json.gz --limit 10',
    '<%= config.bin %> summary out/run.pftrace --json | jq \'.kernels[0]\'',
  ];
  static override enableJsonFlag = true;
  static override args = { trace: Args.string({ description: 'trace file (.pftrace, .json, .json.gz), or a folder (its newest trace)', required: true }) };
  static override flags = {
    strict: strictFlag,
    limit: Flags.integer({ description: 'rows per table (the rest are folded into "others")', min: 1, default: 25 }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Summary);
    const { summarize } = await import('../views/summary.js');
    const view = await summarize(args.trace, { color: this.color, limit: flags.limit });
    this.print(view.text);
    return view.data;
  }
}
