import { Args, Flags } from '@oclif/core';
import type { ReportName, ReportSort, TimeUnit } from '@gsprof/profiler';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';
import { CliError } from '../errors.js';
import type { ReportFormat } from '../views/summary-reports.js';

export default class Summary extends GsprofCommand {
  static override summary = 'Kernel table (nsys columns), step and FPS lines, and compile time of a trace.';
  static override description = [
    'Reads any trace gsprof can import (its own .pftrace and .json[.gz], PyTorch/Kineto JSON, Perfetto SDK traces) and prints, per GPU queue or stream, `nsys stats` cuda_gpu_kern_sum columns sorted by total time: Time (%), Total Time (ns), Instances, Avg, Med, Min, Max, StdDev, Name. A trace with no GPU kernels (the cpu backend) gets the same table of its CPU stages (cpu_op spans) per thread, titled as CPU stages. Below it: the ProfilerStep statistics; FPS (env-steps/s when the run recorded nEnvs): completed steps over the period from the first step\'s start to the last one\'s completion, which is printed, the same division as the run line of record; gsprof\'s own work in that period (its spans of category gsprof) and its share; and the time spent compiling.',
    'On a folder whose newest trace is a rank\'s (`gsprof record --nproc`, torchrun, mpirun, srun: distributedInfo), it reports every rank of that run: per rank the numbers summary prints for that rank\'s trace alone, the kernels (or CPU stages) side by side across ranks, and the straggler view: per step number, the slowest rank and the spread across ranks (slowest - fastest step time).',
    'With --report (kernels, host, memops, ranges, steps; several allowed), or any of --format csv|json, --output, --sort, --timeunit, it prints `nsys stats`-style reports instead: one row per name summed over every queue, stream and thread, Time (%) as the share of the report\'s total (as nsys computes it), full names (tables: --name-width cuts them).',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> summary out/host_4242.1764700000000000000.pftrace',
    '<%= config.bin %> summary trace.pt.trace.json.gz --limit 10',
    '<%= config.bin %> summary out/run.pftrace --json | jq \'.kernels[0]\'',
    '<%= config.bin %> summary out --report kernels --report host --timeunit us',
    '<%= config.bin %> summary out --report memops --format csv --output memops.csv',
  ];
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { trace: Args.string({ description: 'trace file (.pftrace, .json, .json.gz), or a folder (its newest trace; when that is a rank\'s, every rank of its run); several traces, a glob or a Parquet export: every rank they hold', required: true }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    limit: Flags.integer({ description: 'rows per table (the rest are folded into "others")', min: 1, default: 25 }),
    report: Flags.string({ description: 'nsys stats-style report(s), one row per name across all queues and threads', options: ['kernels', 'host', 'memops', 'ranges', 'steps'], multiple: true }),
    format: Flags.string({ description: 'output format of the reports', options: ['table', 'csv', 'json'], default: 'table' }),
    output: Flags.string({ description: 'write the reports to this file instead of stdout' }),
    sort: Flags.string({ description: 'report row order (descending, name ascending)', options: ['total', 'instances', 'avg', 'med', 'min', 'max', 'name'], default: 'total' }),
    timeunit: Flags.string({ description: 'time unit of the report columns', options: ['ns', 'us', 'ms', 's'], default: 'ns' }),
    'name-width': Flags.integer({ description: 'tables: cut names longer than this (default: full names)', min: 4 }),
  };

  async run(): Promise<unknown> {
    const { args, argv, flags } = await this.parse(Summary);
    const inputs = argv as string[];
    const wantsReports = flags.report !== undefined || flags.format !== 'table' || flags.output !== undefined || flags.sort !== 'total' || flags.timeunit !== 'ns';
    if (wantsReports) {
      const { summaryReports } = await import('../views/summary-reports.js');
      if (inputs.length > 1) throw new CliError('summary', '--report, --format, --output, --sort and --timeunit read one trace; give one');
      const view = await summaryReports(args.trace, {
        reports: (flags.report ?? ['kernels', 'steps']) as ReportName[], format: flags.format as ReportFormat, sort: flags.sort as ReportSort,
        timeunit: flags.timeunit as TimeUnit, ...(flags['name-width'] !== undefined ? { nameWidth: flags['name-width'] } : {}),
        color: this.color && flags.output === undefined, ...(flags.output !== undefined ? { output: flags.output } : {}),
      });
      if (flags.output !== undefined) {
        const { writeFileAtomic } = await import('@gsprof/profiler');
        await writeFileAtomic(flags.output, `${view.text}\n`);
        this.print(`wrote ${flags.output}`);
      } else {
        this.print(view.text);
      }
      return view.data;
    }
    const { summarize } = await import('../views/summary.js');
    const view = await summarize(inputs, { color: this.color, limit: flags.limit, ...(flags['name-width'] !== undefined ? { nameWidth: flags['name-width'] } : {}) });
    this.print(view.text);
    return this.finishSkipping(view.data, view.skipped, 'the report covers the other ranks');
  }
}
