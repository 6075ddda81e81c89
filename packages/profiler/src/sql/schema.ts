/**
 * The trace tables, named and shaped like Perfetto trace processor's so that its users' queries run as written.
 * Importers fill staging tables (times in ns relative to an origin: a slice's or counter's ts as BIGINT, exact at
 * any distance from the origin; durations and flow times as DOUBLE, exact below 2^53 ns);
 * `finalizeTables` turns them into the public tables with absolute BIGINT ns and computed nesting. `args` stays
 * a view over the staged rows and a small table of keys: a Kineto trace has ten args per slice, and copying
 * millions of rows with two key strings each was a third of its import.
 */

/**
 * Staging tables that the public ones are built from and that are then dropped: temporary, so that the
 * database file never gets them (writing them out at the import's commit cost about a second on a 200 MB trace).
 * DuckDB still spills them to its temp directory when they outgrow the memory limit.
 */
export const TEMP_STAGING_TABLES = ['_string', '_slice_raw', '_counter_raw', '_flow_event', '_flow_name', '_nest'] as const;

/**
 * Staged args are split by the type of value they hold, each table without the others' columns: a Kineto trace
 * has ten args per slice, and every column, a null one too, costs every row its append. _args_int holds ints
 * (int64, exact past 2^53) and null args (int_value NULL), _args_str strings (and integers past int64, as their
 * digits), _args_real reals, _args_bool bools as 0/1.
 */
export const STAGING_DDL = `
CREATE TEMP TABLE _string (id INTEGER, str VARCHAR);
CREATE TEMP TABLE _slice_raw (id INTEGER, ts BIGINT, dur DOUBLE, track_id INTEGER, category_id INTEGER, name_id INTEGER, arg_set_id INTEGER, depth INTEGER, parent_id INTEGER);
CREATE TEMP TABLE _counter_raw (id INTEGER, ts BIGINT, track_id INTEGER, value DOUBLE);
CREATE TEMP TABLE _flow_event (flow_key VARCHAR, seq INTEGER, kind TINYINT, ts DOUBLE, track_id INTEGER, bind TINYINT, slice_id INTEGER, streamed INTEGER);
CREATE TEMP TABLE _flow_name (flow_key VARCHAR, category VARCHAR, name VARCHAR);
CREATE TEMP TABLE _nest (id INTEGER, depth INTEGER, parent_id INTEGER);
CREATE TABLE _args_int (arg_set_id INTEGER, key_id INTEGER, int_value BIGINT, id INTEGER);
CREATE TABLE _args_real (arg_set_id INTEGER, key_id INTEGER, real_value DOUBLE, id INTEGER);
CREATE TABLE _args_str (arg_set_id INTEGER, key_id INTEGER, string_value VARCHAR, id INTEGER);
CREATE TABLE _args_bool (arg_set_id INTEGER, key_id INTEGER, bool_value TINYINT, id INTEGER);
CREATE TABLE arg_shape (arg_set_id INTEGER, arg_id INTEGER, path VARCHAR, json VARCHAR);
CREATE TABLE process (upid INTEGER, pid BIGINT, name VARCHAR);
CREATE TABLE thread (utid INTEGER, tid BIGINT, name VARCHAR, upid INTEGER);
CREATE TABLE track (id INTEGER, name VARCHAR, type VARCHAR, parent_id INTEGER, utid INTEGER, upid INTEGER, unit VARCHAR);
CREATE TABLE metadata (name VARCHAR, str_value VARCHAR, int_value BIGINT);
CREATE TABLE stats (name VARCHAR, idx BIGINT, severity VARCHAR, source VARCHAR, value BIGINT, description VARCHAR);
CREATE TABLE zero_dur_slice (slice_id BIGINT);
`;

/**
 * zero_dur_slice (gsprof's own) lists the slices of dur 0 that were written as slices (a JSON X, a pftrace
 * BEGIN/END or legacy X at one time; a JSON B/E pair at one ts), not as instants: the slice table cannot tell them apart (as in
 * trace_processor), and convert writes each back as what it was. Such slices are rare, so the table is small.
 */

/**
 * Flow event kinds: a chain starts, passes through, or ends at the bound slice; FLOW_IN (JSON v2 flow_in
 * without flow_out) receives an arrow from the chain's latest slice but neither continues nor closes it.
 */
export const FLOW_START = 0;
export const FLOW_STEP = 1;
export const FLOW_END = 2;
export const FLOW_IN = 3;
/** How a flow event finds its slice: the deepest slice open at ts, the next slice to begin, or a known id. */
export const BIND_ENCLOSING = 0;
export const BIND_NEXT = 1;
export const BIND_DIRECT = 2;

/** Kernels on a GPU/accelerator: Kineto's 'kernel' (also our WebGPU passes), old Kineto's 'Kernel', MTIA's device events. */
export const KERNEL_CATEGORIES = ['kernel', 'Kernel', 'mtia_ccp_events'] as const;
/** Categories of work that runs on a GPU queue/stream: kernels and copies/fills (old Kineto: 'Memcpy', 'Memset'). */
export const GPU_OP_CATEGORIES = [...KERNEL_CATEGORIES, 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset'] as const;
export const KERNEL_CATEGORY_SQL = `(${KERNEL_CATEGORIES.map((c) => `'${c}'`).join(',')})`;
export const GPU_OP_CATEGORY_SQL = `(${GPU_OP_CATEGORIES.map((c) => `'${c}'`).join(',')})`;
/** CPU-side calls that launch GPU work: CUDA/HIP runtime and driver calls, and our queue.submit. */
export const LAUNCH_CATEGORY_SQL = `('cuda_runtime','cuda_driver')`;

/** The args staging tables (STAGING_DDL) and what each gives the args view's value columns. */
const ARG_TABLES = [
  { table: '_args_int', int: 'a.int_value', string: 'CAST(NULL AS VARCHAR)', real: 'CAST(NULL AS DOUBLE)',
    type: "CASE WHEN a.int_value IS NULL THEN 'null' ELSE 'int' END" },
  { table: '_args_str', int: 'CAST(NULL AS BIGINT)', string: 'a.string_value', real: 'CAST(NULL AS DOUBLE)', type: "'string'" },
  { table: '_args_real', int: 'CAST(NULL AS BIGINT)', string: 'CAST(NULL AS VARCHAR)', real: 'a.real_value', type: "'real'" },
  { table: '_args_bool', int: 'CAST(a.bool_value AS BIGINT)', string: 'CAST(NULL AS VARCHAR)', real: 'CAST(NULL AS DOUBLE)', type: "'bool'" },
] as const;

/**
 * `renested`: some slices' depth and parent were computed again in SQL, into `_nest` (see TraceSink.nestAndBind).
 * `threadTimes`: some slices have a thread time, in `_thread_time`; otherwise thread_ts and thread_dur are NULL.
 */
export function publicViewsDdl(offsetNs: bigint, renested: boolean, threadTimes = false): string {
  const off = offsetNs.toString();
  const depth = renested ? 'CASE WHEN n.id IS NULL THEN r.depth ELSE n.depth END' : 'r.depth';
  const parent = renested ? 'CASE WHEN n.id IS NULL THEN r.parent_id ELSE n.parent_id END' : 'r.parent_id';
  return `
CREATE TABLE slice AS
  SELECT CAST(r.id AS BIGINT) AS id, CAST(r.ts AS BIGINT) + ${off} AS ts, CAST(r.dur AS BIGINT) AS dur, r.track_id,
         c.str AS category, nm.str AS name, ${depth} AS depth, CAST(${parent} AS BIGINT) AS parent_id,
         CAST(r.arg_set_id AS BIGINT) AS arg_set_id,
         ${threadTimes ? 'tt.thread_ts, tt.thread_dur' : 'CAST(NULL AS BIGINT) AS thread_ts, CAST(NULL AS BIGINT) AS thread_dur'}
  FROM _slice_raw r ${renested ? 'LEFT JOIN _nest n ON n.id = r.id' : ''} ${threadTimes ? 'LEFT JOIN _thread_time tt ON tt.id = r.id' : ''}
  LEFT JOIN _string c ON c.id = r.category_id LEFT JOIN _string nm ON nm.id = r.name_id;
CREATE TABLE _arg_key AS
  SELECT id, str AS key, regexp_replace(str, '\\[\\d+\\]', '', 'g') AS flat_key FROM _string
  WHERE id IN (${ARG_TABLES.map((t) => `SELECT key_id FROM ${t.table}`).join(' UNION ')});
CREATE VIEW args AS
${ARG_TABLES.map((t) => `  SELECT CAST(a.id AS BIGINT) AS id, CAST(a.arg_set_id AS BIGINT) AS arg_set_id, k.flat_key, k.key,
         ${t.int} AS int_value, ${t.string} AS string_value, ${t.real} AS real_value, ${t.type} AS value_type
  FROM ${t.table} a JOIN _arg_key k ON k.id = a.key_id`).join('\n  UNION ALL\n')};
CREATE TABLE counter AS
  SELECT CAST(id AS BIGINT) AS id, CAST(ts AS BIGINT) + ${off} AS ts, track_id, value FROM _counter_raw;
CREATE VIEW thread_track AS SELECT id, name, type, parent_id, utid FROM track WHERE utid IS NOT NULL AND type <> 'counter';
CREATE VIEW process_track AS SELECT id, name, type, parent_id, upid FROM track WHERE upid IS NOT NULL AND utid IS NULL AND type <> 'counter';
CREATE VIEW counter_track AS SELECT id, name, unit, type, parent_id, utid, upid FROM track WHERE type = 'counter';
CREATE VIEW thread_slice AS
  SELECT s.*, tt.utid FROM slice s JOIN thread_track tt ON s.track_id = tt.id;
CREATE MACRO extract_arg(set_id, arg_key) AS (
  SELECT coalesce(a.string_value, CAST(a.int_value AS VARCHAR), CAST(a.real_value AS VARCHAR))
  FROM args a WHERE a.arg_set_id = set_id AND a.key = arg_key LIMIT 1);
`;
}

/**
 * Flow edges from the bound flow events, per flow key in time (then file) order: every event that is not a
 * start receives an arrow from the latest start/step before it, unless an end closed the chain in between.
 * A JSON v1 flow (key 'j...') is read as trace_processor reads one: its `f` events do not close it (a CUDA graph
 * launch's one `s` reaches each of its kernels' `f`), and a second `s` of an id is ignored (flow_duplicate_id),
 * so its chain has one start, the first, and its steps after it.
 * Ids follow (slice_out, slice_in), then the flow's key and place: two flows between one pair of slices (a v1
 * and a v2 flow, say) keep their ids from one import to the next.
 * category and name (gsprof's own columns): a JSON flow's cat and name (in its key), else those _flow_name gives
 * its key, else those _flow_name gives every flow of a pftrace (the row without a key); see recordFlowNames.
 */
export const FLOW_DDL = `
CREATE TABLE flow AS
  WITH o AS (
    SELECT flow_key, kind, slice_id, row_number() OVER (PARTITION BY flow_key ORDER BY ts, seq) AS pos,
           starts_with(flow_key, 'j' || chr(0)) AS v1 FROM _flow_bound),
  seg AS (
    SELECT *, CASE WHEN v1 THEN 0 ELSE coalesce(sum(CASE WHEN kind = ${FLOW_END} THEN 1 ELSE 0 END) OVER (PARTITION BY flow_key ORDER BY pos
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) END AS segment,
           min(CASE WHEN kind = ${FLOW_START} THEN pos END) OVER (PARTITION BY flow_key) AS first_start FROM o),
  src AS (SELECT flow_key, segment, pos, slice_id FROM seg WHERE kind IN (${FLOW_START}, ${FLOW_STEP})
          AND (NOT v1 OR pos = first_start OR (kind = ${FLOW_STEP} AND pos > first_start))),
  dst AS (SELECT flow_key, segment, pos, slice_id FROM seg WHERE kind <> ${FLOW_START})
  SELECT CAST(row_number() OVER (ORDER BY s.slice_id, d.slice_id, s.flow_key, d.pos) - 1 AS BIGINT) AS id,
         CAST(s.slice_id AS BIGINT) AS slice_out, CAST(d.slice_id AS BIGINT) AS slice_in, CAST(NULL AS BIGINT) AS arg_set_id,
         CASE WHEN starts_with(s.flow_key, 'j' || chr(0)) THEN nullif(split_part(s.flow_key, chr(0), 2), '') ELSE coalesce(n.category, dflt.category) END AS category,
         CASE WHEN starts_with(s.flow_key, 'j' || chr(0)) THEN nullif(split_part(s.flow_key, chr(0), 3), '') ELSE coalesce(n.name, dflt.name) END AS name
  FROM dst d ASOF JOIN src s ON d.flow_key = s.flow_key AND d.segment = s.segment AND d.pos > s.pos
  LEFT JOIN _flow_name n ON n.flow_key = s.flow_key
  LEFT JOIN (SELECT category, name FROM _flow_name WHERE flow_key IS NULL LIMIT 1) dflt ON starts_with(s.flow_key, 'p')
  WHERE s.slice_id <> d.slice_id;
`;

/**
 * Which CPU slice launched each GPU op: a flow from a launch call (Kineto ac2g, our submit->pass arrows), else
 * Kineto's shared `correlation` arg between a runtime/driver call and the GPU op. The launch's ts and dur are
 * copied in: every analysis that asks for them would otherwise join the whole slice table again.
 */
export const LAUNCH_DDL = `
CREATE TABLE gpu_launch AS
  WITH gpu AS (SELECT id, arg_set_id, track_id FROM slice WHERE category IN ${GPU_OP_CATEGORY_SQL}),
  by_flow AS (
    SELECT f.slice_in AS gpu_slice_id, min(f.slice_out) AS launch_slice_id,
           arg_min(c.ts, f.slice_out) AS launch_ts, arg_min(c.dur, f.slice_out) AS launch_dur
    FROM flow f JOIN gpu ON gpu.id = f.slice_in JOIN slice c ON c.id = f.slice_out
    WHERE c.category IS NULL OR c.category NOT IN ${GPU_OP_CATEGORY_SQL}
    GROUP BY f.slice_in),
  corr AS (
    -- A JSON event's args are args.*, a pftrace's debug annotations debug.* (convert writes one as the other).
    SELECT a.arg_set_id, a.int_value AS corr FROM args a
    WHERE a.key IN ('args.correlation', 'debug.correlation') AND a.int_value IS NOT NULL),
  by_corr AS (
    SELECT g.id AS gpu_slice_id, min(c.id) AS launch_slice_id, arg_min(c.ts, c.id) AS launch_ts, arg_min(c.dur, c.id) AS launch_dur
    FROM gpu g JOIN corr gc ON gc.arg_set_id = g.arg_set_id
    JOIN corr cc ON cc.corr = gc.corr AND cc.arg_set_id <> gc.arg_set_id
    JOIN slice c ON c.arg_set_id = cc.arg_set_id AND c.category IN ${LAUNCH_CATEGORY_SQL}
    WHERE g.id NOT IN (SELECT gpu_slice_id FROM by_flow)
      -- Each rank numbers its correlations from 1: in a gsprof merge (a process per rank, its GPU queues in it)
      -- an id links only within a process. In one Kineto trace the GPU ops are a process of their own.
      AND (NOT EXISTS (SELECT 1 FROM metadata WHERE name = 'gsprof.run.mergedRanks')
        OR (SELECT upid FROM track WHERE id = g.track_id) = (SELECT upid FROM track WHERE id = c.track_id))
    GROUP BY g.id)
  SELECT * FROM by_flow UNION ALL SELECT * FROM by_corr;
`;

/** Drops every trace table, view and macro from the connection's database, so a connection can be reused. */
export async function dropTraceTables(conn: { runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): unknown[] }>; run(sql: string): Promise<unknown> }): Promise<void> {
  const views = (await conn.runAndReadAll(`SELECT view_name AS n FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'`)).getRowObjectsJS() as { n: string }[];
  for (const v of views) await conn.run(`DROP VIEW IF EXISTS "${v.n}"`);
  const tables = (await conn.runAndReadAll(`SELECT table_name AS n FROM duckdb_tables() WHERE schema_name = 'main'`)).getRowObjectsJS() as { n: string }[];
  for (const t of tables) await conn.run(`DROP TABLE IF EXISTS "${t.n}"`);
  await conn.run('DROP MACRO IF EXISTS extract_arg');
}
