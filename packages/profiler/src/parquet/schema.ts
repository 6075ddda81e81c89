/**
 * The Parquet export's layout, shared by the writer (export.ts) and the reader (dataset.ts): one folder per
 * table, Hive-partitioned by rank (`slice/rank=3/part-0.parquet`), and a manifest naming the schema version.
 * docs/export.md documents every column; a change to a column bumps PARQUET_SCHEMA_VERSION.
 */
import { join } from 'node:path';
import type { SkippedTrace } from '../analysis/rank.js';
import { stepTableSql } from '../analysis/step-times.js';

/** The export's schema version. A reader refuses a newer one (its columns may mean something else). */
export const PARQUET_SCHEMA_VERSION = 1;
/** The manifest at the export's root: `{format, schema_version, tables, ranks, skipped}`. */
export const EXPORT_MANIFEST = 'gsprof-export.json';
export const EXPORT_FORMAT = 'gsprof-parquet';

/** Each exported table: its columns, and the table or view of one trace it reads them from (the step table is
 * computed: stepTableSql). Columns are listed, not `*`: the schema version promises them. The partition column,
 * rank, is the folder. */
export const EXPORT_TABLES: ReadonlyArray<{ name: string; columns: string }> = [
  { name: 'slice', columns: 'id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur' },
  { name: 'track', columns: 'id, name, type, parent_id, utid, upid, unit' },
  { name: 'thread_track', columns: 'id, name, type, parent_id, utid' },
  { name: 'process_track', columns: 'id, name, type, parent_id, upid' },
  { name: 'counter_track', columns: 'id, name, unit, type, parent_id, utid, upid' },
  { name: 'thread', columns: 'utid, tid, name, upid' },
  { name: 'process', columns: 'upid, pid, name' },
  { name: 'counter', columns: 'id, ts, track_id, value' },
  { name: 'args', columns: 'id, arg_set_id, flat_key, key, int_value, string_value, real_value, value_type' },
  { name: 'flow', columns: 'id, slice_out, slice_in, arg_set_id, category, name' },
  { name: 'gpu_launch', columns: 'gpu_slice_id, launch_slice_id, launch_ts, launch_dur' },
  { name: 'metadata', columns: 'name, str_value, int_value' },
  { name: 'stats', columns: 'name, idx, severity, source, value, description' },
  { name: 'step', columns: 'step_index, step, ts, dur, host_dur, gpu_extended' },
];

/** The query giving one exported table's rows from the trace tables in catalog `db` (an attached trace). */
export function exportTableSql(table: { name: string; columns: string }, db: string): string {
  return table.name === 'step' ? stepTableSql(db) : `SELECT ${table.columns} FROM ${db}.${table.name}`;
}

export interface ExportedRank {
  rank: number;
  /** The run's world size the trace names (null for a trace of a process on its own). */
  worldSize: number | null;
  /** The trace file this rank's tables came from, as it was given. */
  source: string;
  /** Rows written per table. */
  rows: Record<string, number>;
}

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  schema_version: number;
  tables: string[];
  ranks: ExportedRank[];
  skipped: SkippedTrace[];
}

/** The folder of one rank's part of one table. */
export function partitionDir(root: string, table: string, rank: number): string {
  return join(root, table, `rank=${rank}`);
}
