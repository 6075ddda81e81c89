/**
 * The Parquet export's layout, shared by the writer (export.ts) and the reader (dataset.ts): one folder per
 * table, Hive-partitioned by rank (`slice/rank=3/part-0.parquet`), and a manifest naming the schema version.
 * docs/export.md documents every column; a change to a column bumps PARQUET_SCHEMA_VERSION.
 */
import { join } from 'node:path';
import { STEP_TABLE_SQL } from '../analysis/step-times.js';

/** The export's schema version. A reader refuses a newer one (its columns may mean something else). */
export const PARQUET_SCHEMA_VERSION = 1;
/** The manifest at the export's root: `{format, schema_version, tables, ranks, skipped}`. */
export const EXPORT_MANIFEST = 'gsprof-export.json';
export const EXPORT_FORMAT = 'gsprof-parquet';

/** Each exported table and the query over one trace's tables that fills it (the partition column, rank, is the
 * folder). Columns are listed, not `*`: the schema version promises them. */
export const EXPORT_TABLES: ReadonlyArray<{ name: string; sql: string }> = [
  { name: 'slice', sql: 'SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur FROM slice' },
  { name: 'track', sql: 'SELECT id, name, type, parent_id, utid, upid, unit FROM track' },
  { name: 'thread_track', sql: 'SELECT id, name, type, parent_id, utid FROM thread_track' },
  { name: 'process_track', sql: 'SELECT id, name, type, parent_id, upid FROM process_track' },
  { name: 'counter_track', sql: 'SELECT id, name, unit, type, parent_id, utid, upid FROM counter_track' },
  { name: 'thread', sql: 'SELECT utid, tid, name, upid FROM thread' },
  { name: 'process', sql: 'SELECT upid, pid, name FROM process' },
  { name: 'counter', sql: 'SELECT id, ts, track_id, value FROM counter' },
  { name: 'args', sql: 'SELECT id, arg_set_id, flat_key, key, int_value, string_value, real_value, value_type FROM args' },
  { name: 'flow', sql: 'SELECT id, slice_out, slice_in, arg_set_id, category, name FROM flow' },
  { name: 'gpu_launch', sql: 'SELECT gpu_slice_id, launch_slice_id, launch_ts, launch_dur FROM gpu_launch' },
  { name: 'metadata', sql: 'SELECT name, str_value, int_value FROM metadata' },
  { name: 'step', sql: STEP_TABLE_SQL },
];

export interface ExportedRank {
  rank: number;
  /** The trace file this rank's tables came from, as it was given. */
  source: string;
  /** Rows written per table. */
  rows: Record<string, number>;
}

export interface SkippedTrace {
  path: string;
  /** One line: why this trace is not in the export. */
  reason: string;
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
