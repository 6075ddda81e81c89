import { Args, Flags } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Query extends GsprofCommand {
  static override summary = 'Run read-only SQL over a trace\'s tables (Perfetto\'s names: slice, track, thread, counter, args, flow, ...).';
  static override description = [
    'The trace is imported into a temporary DuckDB database (removed on exit) whose tables are named and shaped like Perfetto trace processor\'s: slice(id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur), track, thread_track, process_track, thread, process, counter, counter_track, args, flow. Times are ns. The database is opened read-only: only reading statements are accepted. Duplicate result column names are kept apart (`a`, `a_1`). csv and json rows are written as they are produced; the table format reads at most 10,000 rows to size its columns and says when it stopped there. --timeout and --memory-limit hold for any statement: past the timeout (plus 2 s for DuckDB to honour its interrupt), or with the process past the memory limit (over what it held before the query), it is stopped with one line and exit 2 (the query runs in a child process, ended by SIGKILL: DuckDB cannot stop such a statement, and an orderly exit would wait for it). --strict refuses a flawed trace.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> query out/run.pftrace "select name, count(*) n, sum(dur) total from slice group by name order by total desc"',
    '<%= config.bin %> query trace.json "select * from counter_track" --format csv',
    '<%= config.bin %> query out/run.pftrace "select count(*) from slice where category = \'kernel\'" --json',
  ];
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = {
    trace: Args.string({ description: 'trace file, or a folder (its newest trace; when that is a rank\'s, every rank of its run); several traces, a glob or a Parquet export (before the SQL): every rank they hold, with a rank column first in every table', required: true }),
    sql: Args.string({ description: 'one read-only SQL statement', required: true }),
  };
  static override flags = {
    format: Flags.string({ description: 'output format', options: ['table', 'csv', 'json'], default: 'table' }),
    timeout: Flags.integer({ description: 'seconds before the query is stopped (0: no limit)', min: 0, default: 60 }),
    'memory-limit': Flags.string({ description: 'DuckDB memory limit; past it DuckDB spills to disk or fails the query', default: '1GB' }),
    cache: cacheFlag,
    strict: strictFlag,
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(Query);
    const inputs = (argv as string[]).slice(0, -1);
    const sql = (argv as string[]).at(-1)!;
    const { queryReport } = await import('../views/query.js');
    const format = this.jsonEnabled() ? 'json' : (flags.format as 'table' | 'csv' | 'json');
    const write = (text: string): Promise<void> => new Promise((resolve, reject) => {
      process.stdout.write(text, (err) => (err ? reject(err) : resolve()));
    });
    const { skipped } = await queryReport(inputs, sql, { color: this.color, format, timeoutS: flags.timeout, memoryLimit: flags['memory-limit'], write });
    return this.finishSkipping(undefined, skipped, 'the result covers the other ranks');
  }

  /** The result was already written as it streamed; only errors go through oclif's JSON output. */
  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}
