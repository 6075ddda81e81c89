import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Report extends GsprofCommand {
  static override summary = 'One self-contained HTML page of a trace: stage table, step time, busy/idle time, solver timers.';
  static override description = [
    'Writes one HTML file with everything inline (scripts, styles, data; charts drawn by uPlot, which is inlined too), so it opens from file:// with no network, as a CI artifact or an attachment. It shows the kernel table (or a CPU-backend run\'s stage table) with the numbers of `summary --report kernels --format json`, sortable, full names; the step time over the run and its distribution with the warm-up and the outliers marked; the GPU busy and idle time per queue (or the CPU stages\' share of each thread) as `gaps` computes it; and the per-env solver timers `timers` plots. A trace with no steps or no kernels still gets a page that says what is missing.',
    'With --history FOLDER (and no trace), the page is a metric over commits, asv-style: the baselines `record --baseline-out` wrote (each with its commit and date), in date order, step time per baseline as the median over its runs of each run\'s fastest step, and each baseline compared with the one before it as `compare PREVIOUS THIS` does; a regression (compare: worse) is marked, and so is a slowdown past --factor that compare could not call significant.',
    'On a folder whose newest trace is a rank\'s (a multi-process run), the page has a row per rank, each rank\'s step time, and the straggler per step: the slowest rank and the spread across ranks.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> report out/host_4242.1764700000000000000.pftrace -o report.html',
    '<%= config.bin %> report out --output out/report.html',
    '<%= config.bin %> report --history traces/history -o history.html',
  ];
  static override enableJsonFlag = true;
  static override args = { trace: Args.string({ description: 'trace file (.pftrace, .json, .json.gz), or a folder (its newest trace; when that is a rank\'s, every rank of its run)', required: false }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    output: Flags.string({ char: 'o', description: 'the HTML file to write', default: 'report.html' }),
    history: Flags.string({ description: 'a folder of baselines (record --baseline-out): chart step time over their commits instead of one trace' }),
    factor: Flags.string({ description: '--history: slowdown factor that counts as worse (as compare\'s --factor)', default: '1.1' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Report);
    const { CliError } = await import('../errors.js');
    if ((args.trace === undefined) === (flags.history === undefined)) throw new CliError('report', 'give a trace (or run folder), or --history FOLDER, not both');
    const factor = Number(flags.factor);
    if (!Number.isFinite(factor) || factor < 1) throw new CliError('--factor', `'${flags.factor}' must be a number >= 1`);
    const { historyReport, reportPage } = await import('../views/report.js');
    const view = flags.history !== undefined ? await historyReport(flags.history, { factor, output: flags.output }) : await reportPage(args.trace!, flags.output);
    const { writeFileAtomic } = await import('@gsprof/profiler');
    await writeFileAtomic(flags.output, view.html);
    const missing = view.data.missing.length > 0 ? ` (the page says what is missing: ${view.data.missing.join('; ')})` : '';
    this.print(`wrote ${flags.output} (${(Buffer.byteLength(view.html) / 1024).toFixed(0)} KiB)${missing}`);
    return { output: flags.output, bytes: Buffer.byteLength(view.html), ...view.data };
  }
}
