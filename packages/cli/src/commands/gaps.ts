import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Gaps extends GsprofCommand {
  static override summary = 'Where the GPU sat idle: host wait, kernel wait and other, the top gaps, and a verdict.';
  static override description = [
    'Over each GPU queue or stream: busy and idle time, idle split the way Holistic Trace Analysis does (host wait: the next launch began after the previous kernel ended, i.e. the CPU was late; kernel wait: gaps under 30 µs; other), launch delay (GPU start - end of the submit), the longest gaps with the CPU work that overlapped them, and a verdict: GPU-bound, CPU-bound or mixed.',
    'A CPU-only trace (the cpu backend: its stages are cpu_op spans on host threads, no GPU ops) has no GPU timeline to split: the verdict is `no GPU work` and it reports host utilisation instead, the share of the steps\' wall time covered by stage spans on some thread, overall, per step (mean, median, lowest) and per thread.',
    'On a folder whose newest trace is a rank\'s, it reports every rank of that run: per rank its verdict, busy and idle time (or host utilisation), then the straggler view of the steps.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> gaps out/run.pftrace',
    '<%= config.bin %> gaps out/run.pftrace --top 20 --json',
  ];
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { trace: Args.string({ description: 'trace file, or a folder (its newest trace; when that is a rank\'s, every rank of its run); several traces, a glob or a Parquet export: every rank they hold', required: true }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    top: Flags.integer({ description: 'how many of the longest gaps to list', min: 0, default: 10 }),
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(Gaps);
    const inputs = argv as string[];
    const { gapsReport } = await import('../views/gaps.js');
    const view = await gapsReport(inputs, { color: this.color, top: flags.top });
    this.print(view.text);
    return this.finishSkipping(view.data, view.skipped, 'the report covers the other ranks');
  }
}
