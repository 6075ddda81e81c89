import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';
import { CliError } from '../errors.js';

export default class Merge extends GsprofCommand {
  static override summary = 'Merge the traces of a multi-process run into one timeline, one process per rank.';
  static override description = [
    'Given a folder, takes the newest multi-process run in it (`gsprof record --nproc`, or ranks started by torchrun, mpirun or srun: traces with distributedInfo), one trace per rank; given trace files, merges those (a trace without a rank takes its position among the files). The output (.pftrace, or .json/.json.gz) has a process per rank, `rank <k>: ...`, holding that rank\'s threads, GPU queues (named after their device) and counters; slices, instants, counters and flows carry over. Per-env solver timers stay in the rank traces.',
    'Clocks: traces gsprof recorded on one machine carry its CLOCK_MONOTONIC at their start, and line up on it within the printed error bound (each process\'s reading of that clock, typically under a microsecond). Traces from several machines, or without that reading, line up on their wall clocks; the error is then whatever the machines\' time synchronisation leaves, which gsprof cannot know, and the output says so.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> merge out -o out/merged.pftrace',
    '<%= config.bin %> merge out/host_1.rank0.1.pftrace out/host_1.rank1.2.pftrace -o merged.pftrace',
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override args = { inputs: Args.string({ description: 'a folder of rank traces, or the trace files to merge', required: true }) };
  static override flags = {
    strict: strictFlag,
    cache: cacheFlag,
    output: Flags.string({ char: 'o', description: 'file to write (.pftrace, .json or .json.gz)', required: true }),
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(Merge);
    const inputs = argv as string[];
    if (inputs.length === 0) throw new CliError('merge', 'name a folder of rank traces or the trace files to merge');
    const { mergeRanks } = await import('../views/merge.js');
    const { text, ...result } = await mergeRanks(inputs, flags.output);
    this.print(text);
    return result;
  }
}
