import { Args, Flags } from '@oclif/core';
import { GsprofCommand } from '../base.js';

export default class Query extends GsprofCommand {
  static override summary = 'Run read-only SQL over a trace\'s tables (Perfetto\'s names: slice, track, thread, counter, args, flow, ...).';
  static override description = [
    'The trace is imported into an in-memory DuckDB database whose tables are named and shaped like Perfetto trace processor\'s: slice(id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id), track, thread_track, process_track, thread, process, counter, counter_track, args, flow. Times are ns. Only reading statements are accepted.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> query out/run.pftrace "select name, count(*) n, sum(dur) total from slice group by name order by total desc"',
    '<%= config.bin %> query trace.json "select * from counter_track" --format csv',
    '<%= config.bin %> query out/run.pftrace "select count(*) from slice where category = \'kernel\'" --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    trace: Args.string({ description: 'trace file, or a folder (its newest trace)', required: true }),
    sql: Args.string({ description: 'one read-only SQL statement', required: true }),
  };
  static override flags = {
    format: Flags.string({ description: 'output format', options: ['table', 'csv', 'json'], default: 'table' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Query);
    const { queryReport } = await import('../views/query.js');
    const format = this.jsonEnabled() ? 'json' : (flags.format as 'table' | 'csv' | 'json');
    const view = await queryReport(args.trace, args.sql, { color: this.color, format });
    if (!this.jsonEnabled()) this.print(view.text);
    return view.data;
  }
}
