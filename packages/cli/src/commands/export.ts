import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Export extends GsprofCommand {
  static override summary = 'Export the trace tables of one or many rank traces as Parquet, partitioned by rank.';
  static override description = [
    'Writes gsprof\'s tables (slice, track, thread_track, process_track, counter_track, thread, process, counter, args, flow, gpu_launch, metadata, stats, step) as Parquet files written by DuckDB, one folder per table, Hive-partitioned by rank: OUT/slice/rank=K/part-0.parquet. Timestamps are int64 ns; repeated strings are dictionary-encoded. OUT/gsprof-export.json names the schema version, the ranks and their source traces. docs/export.md documents every column.',
    'Each trace\'s rank is its Kineto distributedInfo rank (a single trace without one is rank 0). A trace that cannot be read, that names no rank among several, or whose rank another trace claims too is skipped with one line saying why; the others are exported, and the exit status is 2. The export is written in a temporary folder and renamed into place: OUT is never half written. An earlier export at OUT is replaced; any other non-empty folder is refused.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> export out/run.pftrace --format parquet -o run.parquet/',
    '<%= config.bin %> export job/ --format parquet -o job.parquet/',
    '<%= config.bin %> export \'job/rank-*.json.gz\' --format parquet -o job.parquet/',
  ];
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = {
    traces: Args.string({ description: 'trace files, folders of traces, or globs (several allowed)', required: true }),
  };
  static override flags = {
    format: Flags.string({ description: 'output format', options: ['parquet'], required: true }),
    output: Flags.string({ char: 'o', description: 'folder to write (replaced if an earlier export)', required: true }),
    'memory-limit': Flags.string({ description: 'DuckDB memory limit of the import and the writer; past it DuckDB spills to disk', default: '1GB' }),
    strict: strictFlag,
    cache: cacheFlag,
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(Export);
    const { exportTraces } = await import('../views/export.js');
    const result = await exportTraces(argv as string[], flags.output, {
      memoryLimit: flags['memory-limit'],
      progress: (line) => process.stderr.write(`${line}\n`),
    });
    const ranks = result.ranks.map((r) => r.rank);
    this.print(`wrote ${result.out}: ${ranks.length} rank${ranks.length === 1 ? '' : 's'} (${ranks.join(', ')}), ${result.ranks.reduce((n, r) => n + (r.rows.slice ?? 0), 0)} slices`);
    return this.finishSkipping(result, result.skipped, `the other ranks were exported to ${result.out}`);
  }
}
