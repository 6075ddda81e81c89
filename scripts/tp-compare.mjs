// Runs the same canonical queries on gsprof (its `query` CLI) and on Perfetto's trace_processor_shell for each
// trace given, and prints per trace and per query: equal, or differs with the first differing rows. gsprof
// imports each trace once, through its library (packages/profiler/dist), and answers every query from it.
//
//   node scripts/tp-compare.mjs [--tp PATH] [--cli RUN_JS] [--only q1,q2] [--rows N] [--markdown] TRACE...
//
// trace_processor_shell is taken from --tp or the TRACE_PROCESSOR environment variable. Build gsprof first
// (`npx tsc -b`): the library runs from dist. --cli names another checkout's packages/cli/bin/run.js (a build of
// a given commit, say): that checkout's library is used in place of this one's. Exit code: 0 all equal, 1 any query differs or fails, 2 bad input.
//
// Both outputs are normalised before comparing: rows sorted, NULL written as NULL, every value as a string
// (integers exactly), and real values formatted in SQL on both sides with printf('%.10g') because
// trace_processor's CSV prints reals with %f (six decimals, so 1e-9 reads as 0.000000).
//
// A JSON pid or tid that is a string (Kineto's "Spans", "Traces") is a number in both tools, of each one's own
// making: trace_processor takes the id of the string in its string pool, gsprof counts from 2^30. In the columns
// that hold pids and tids (a query's `ids`), such a number is compared as the string it stands for, written
// "in quotes": gsprof's from its metadata (json_string_id.N), trace_processor's as the one pid or tid (never a
// numeric id of the trace) of the processes and threads it names after that string. A number left unresolved
// stays a number and shows as a difference.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A real value printed alike by DuckDB and SQLite (SQLite's printf of NULL is '', DuckDB's is NULL). */
const real = (x) => `CASE WHEN ${x} IS NULL THEN NULL ELSE printf('%.10g', ${x}) END`;
/** Where a slice's track belongs: a thread, a process (async tracks included), or neither (global tracks). */
const scopeOf = (col) =>
  `CASE WHEN ${col} IN (SELECT id FROM thread_track) THEN 'thread' WHEN ${col} IN (SELECT id FROM process_track) THEN 'process' ELSE 'global' END`;
/** Only the args a trace carries (JSON args.*, Perfetto debug annotations debug.*): trace_processor also
 * records its own bookkeeping in a slice's arg set (legacy_event.*, source, trace_id_is_process_scoped, ...). */
const userArg = `(a.key LIKE 'args.%' OR a.key LIKE 'debug.%')`;
/** trace_processor's CSV does not escape quotes in strings: a string that may hold `",` (JSON in an arg) has its
 * quotes sent as \u0001 on that side and put back when read. */
const QUOTE_STAND_IN = '\u0001';
const quoted = (side, x) => (side === 'tp' ? `replace(${x}, '"', char(1))` : x);

/**
 * The canonical queries. `sql` runs on both sides; `gsprof`/`tp` replace it on one side where the schemas
 * differ (the comment says why). Columns are compared by position, not name.
 */
const QUERIES = [
  { id: 'slice_totals', sql: 'SELECT count(*), sum(dur) FROM slice' },
  {
    id: 'slices_by_name',
    sql: 'SELECT category, name, count(*), sum(dur), min(dur), max(dur) FROM slice GROUP BY category, name',
  },
  { id: 'max_depth', sql: 'SELECT max(depth) FROM slice' },
  { id: 'depth_histogram', sql: 'SELECT depth, count(*) FROM slice GROUP BY depth' },
  {
    id: 'slices_per_thread',
    ids: [0, 2],
    sql: `SELECT p.pid, p.name, t.tid, t.name, count(*), sum(s.dur), max(s.depth)
      FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t ON t.utid = tt.utid
      LEFT JOIN process p ON p.upid = t.upid GROUP BY p.pid, p.name, t.tid, t.name`,
  },
  {
    // Tracks that are not a thread's, by name with their process. Thread tracks are left to slices_per_thread:
    // trace_processor leaves a thread's default track unnamed (its UI shows the thread's name), gsprof names it
    // after the thread, so comparing thread tracks by name would only show that convention.
    id: 'slices_per_track',
    sql: `SELECT ${scopeOf('s.track_id')}, p.pid, tr.name, count(*), sum(s.dur)
      FROM slice s JOIN track tr ON tr.id = s.track_id
      LEFT JOIN process_track pt ON pt.id = s.track_id LEFT JOIN process p ON p.upid = pt.upid
      WHERE s.track_id NOT IN (SELECT id FROM thread_track) GROUP BY 1, p.pid, tr.name`,
  },
  {
    id: 'instants',
    sql: `SELECT scope, name, count(*) FROM (SELECT ${scopeOf('track_id')} AS scope, name FROM slice WHERE dur = 0)
      GROUP BY scope, name`,
  },
  {
    id: 'counters',
    sql: `SELECT ct.name, count(*), ${real('min(c.value)')}, ${real('max(c.value)')}, ${real('sum(c.value)')}
      FROM counter c JOIN counter_track ct ON ct.id = c.track_id GROUP BY ct.name`,
  },
  {
    // Which process/thread owns each counter track. gsprof's counter_track has upid/utid columns;
    // trace_processor v58 keeps them in process_counter_track.upid and thread_counter_track.utid.
    id: 'counter_owners',
    ids: [1, 2],
    gsprof: `SELECT ct.name, coalesce(p.pid, tp.pid), t.tid, count(*)
      FROM counter c JOIN counter_track ct ON ct.id = c.track_id
      LEFT JOIN thread t ON t.utid = ct.utid LEFT JOIN process tp ON tp.upid = t.upid
      LEFT JOIN process p ON p.upid = ct.upid GROUP BY 1, 2, 3`,
    tp: `SELECT ct.name, coalesce(p.pid, tp.pid), t.tid, count(*)
      FROM counter c JOIN counter_track ct ON ct.id = c.track_id
      LEFT JOIN thread_counter_track tct ON tct.id = ct.id LEFT JOIN thread t ON t.utid = tct.utid
      LEFT JOIN process tp ON tp.upid = t.upid
      LEFT JOIN process_counter_track pct ON pct.id = ct.id LEFT JOIN process p ON p.upid = pct.upid
      GROUP BY 1, 2, 3`,
  },
  { id: 'flow_count', sql: 'SELECT count(*) FROM flow' },
  {
    id: 'flow_pairs',
    sql: `SELECT so.name, si.name, count(*) FROM flow f JOIN slice so ON so.id = f.slice_out
      JOIN slice si ON si.id = f.slice_in GROUP BY so.name, si.name`,
  },
  {
    // trace_processor always has upid 0 (pid 0, no name) as a placeholder, whatever the trace holds;
    // gsprof numbers processes from 0 with no placeholder.
    id: 'processes',
    ids: [0],
    gsprof: 'SELECT pid, name FROM process',
    tp: 'SELECT pid, name FROM process WHERE upid <> 0',
  },
  {
    // Threads a user sees: named, or owning a thread track. trace_processor also creates an unnamed main
    // thread (tid = pid) for each process it meets and keeps utid 0 as the swapper placeholder.
    id: 'threads',
    ids: [0, 1],
    gsprof: `SELECT p.pid, t.tid, t.name FROM thread t LEFT JOIN process p ON p.upid = t.upid
      WHERE t.name IS NOT NULL OR t.utid IN (SELECT utid FROM thread_track)`,
    tp: `SELECT p.pid, t.tid, t.name FROM thread t LEFT JOIN process p ON p.upid = t.upid
      WHERE t.utid <> 0 AND (t.name IS NOT NULL OR t.utid IN (SELECT utid FROM thread_track))`,
  },
  {
    // Threads that carry slices, counted (a thread split in two, or two threads merged, shows here first).
    id: 'thread_count',
    sql: 'SELECT count(DISTINCT tt.utid) FROM slice s JOIN thread_track tt ON tt.id = s.track_id',
  },
  {
    // Every named thread with its name, whether or not it owns a track: names come from track descriptors,
    // process/thread descriptors and metadata events.
    id: 'named_threads',
    ids: [0],
    gsprof: 'SELECT tid, name FROM thread WHERE name IS NOT NULL',
    tp: 'SELECT tid, name FROM thread WHERE utid <> 0 AND name IS NOT NULL',
  },
  {
    // Problems counted while importing: the stats of severity error or data_loss that are not 0 (gsprof's stats
    // table has trace_processor's names and severities).
    id: 'stats',
    sql: `SELECT name, idx, value FROM stats WHERE severity IN ('error', 'data_loss') AND value <> 0`,
  },
  {
    id: 'arg_keys',
    sql: `SELECT a.key, a.value_type, count(*) FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id
      WHERE ${userArg} GROUP BY a.key, a.value_type`,
  },
  {
    // The args of the first ten slices (by ts, then name, dur, depth) that carry any, with ts from the first
    // slice's: gsprof adds a Kineto trace's baseTimeNanoseconds to its timestamps, trace_processor v58 does not,
    // and ts_range already shows that offset.
    id: 'args_first_slices',
    sql: (side) => `WITH f AS (SELECT s.ts - (SELECT min(ts) FROM slice) AS ts, s.name, s.arg_set_id FROM slice s
        WHERE EXISTS (SELECT 1 FROM args a WHERE a.arg_set_id = s.arg_set_id AND ${userArg})
        ORDER BY s.ts, s.name, s.dur, s.depth LIMIT 10)
      SELECT f.ts, f.name, a.key, a.value_type, a.int_value, ${quoted(side, 'a.string_value')}, ${real('a.real_value')}
      FROM f JOIN args a ON a.arg_set_id = f.arg_set_id WHERE ${userArg}`,
  },
  {
    id: 'ts_range',
    sql: `SELECT (SELECT min(ts) FROM slice), (SELECT max(ts + dur) FROM slice),
      (SELECT min(ts) FROM counter), (SELECT max(ts) FROM counter)`,
  },
];

/** gsprof's numbers for string pids and tids, and the strings (see the header). */
const GSPROF_STRING_IDS = `SELECT substr(name, 16) AS id, str_value FROM metadata WHERE name LIKE 'json_string_id.%'`;
/** gsprof's numeric pids and tids that are not string ids: trace_processor's string ids are never taken for one. */
const GSPROF_NUMERIC_IDS = `SELECT pid FROM process UNION SELECT tid FROM thread
  EXCEPT SELECT CAST(substr(name, 16) AS BIGINT) FROM metadata WHERE name LIKE 'json_string_id.%'`;
/** trace_processor's named processes and threads: a string pid or tid names its process or thread. */
const TP_NAMED_IDS = `SELECT pid, ${quoted('tp', 'name')} FROM process WHERE upid <> 0 AND name IS NOT NULL
  UNION ALL SELECT tid, ${quoted('tp', 'name')} FROM thread WHERE utid <> 0 AND name IS NOT NULL`;

/** Both sides' maps from a string id's number (as text) to the string written "in quotes". */
function stringIdMaps(gStrings, gNumeric, tpNamed) {
  const gsprof = new Map();
  for (const r of gStrings) {
    const [id, str] = r.split('\t');
    gsprof.set(id, `"${str}"`);
  }
  const numeric = new Set(gNumeric);
  const byName = new Map();
  for (const r of tpNamed) {
    const tab = r.indexOf('\t');
    const [id, name] = [r.slice(0, tab), r.slice(tab + 1)];
    if (numeric.has(id)) continue;
    if (!byName.has(name)) byName.set(name, new Set());
    byName.get(name).add(id);
  }
  const tp = new Map();
  for (const str of new Set(gStrings.map((r) => r.slice(r.indexOf('\t') + 1)))) {
    const ids = byName.get(str);
    if (ids?.size === 1) tp.set([...ids][0], `"${str}"`);
  }
  return { gsprof, tp };
}

/** A row with the pids and tids in columns `ids` that `map` knows replaced by their strings. */
function withStringIds(row, ids, map) {
  if (!ids || map.size === 0) return row;
  const cells = row.split('\t');
  for (const i of ids) if (map.has(cells[i])) cells[i] = map.get(cells[i]);
  return cells.join('\t');
}

/** A query's SQL on one side: its own text for that side, else the shared one (a function of the side or not). */
function sqlFor(q, side) {
  const sql = q[side] ?? q.sql;
  return typeof sql === 'function' ? sql(side) : sql;
}

function usage(msg) {
  if (msg) console.error(`tp-compare: ${msg}`);
  console.error(
    'usage: node scripts/tp-compare.mjs [--tp PATH] [--cli RUN_JS] [--only q1,q2] [--rows N] [--markdown] TRACE...',
  );
  console.error(`queries: ${QUERIES.map((q) => q.id).join(', ')}`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    tp: process.env.TRACE_PROCESSOR,
    cli: join(root, 'packages/cli/bin/run.js'),
    only: null,
    rows: 5,
    markdown: false,
    traces: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--tp') opts.tp = value();
    else if (a === '--cli') opts.cli = resolve(value());
    else if (a === '--only') opts.only = value().split(',');
    else if (a === '--rows') opts.rows = Number(value());
    else if (a === '--markdown') opts.markdown = true;
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else opts.traces.push(a);
  }
  if (!opts.tp) usage('no trace_processor_shell: pass --tp PATH or set TRACE_PROCESSOR');
  if (!existsSync(opts.tp) || !statSync(opts.tp).isFile()) usage(`trace_processor_shell not found: ${opts.tp}`);
  if (opts.traces.length === 0) usage('no trace given');
  for (const t of opts.traces) if (!existsSync(t) || !statSync(t).isFile()) usage(`not a file: ${t}`);
  if (!Number.isInteger(opts.rows) || opts.rows < 0) usage('--rows takes a whole number');
  if (opts.only) {
    const ids = new Set(QUERIES.map((q) => q.id));
    for (const id of opts.only) if (!ids.has(id)) usage(`unknown query ${id}`);
  }
  if (!existsSync(opts.cli)) usage(`gsprof CLI not found at ${opts.cli}`);
  return opts;
}

function run(cmd, args, env) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', (e) => done({ code: -1, stdout: '', stderr: String(e) }));
    child.on('close', (code) => done({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

/** One value as compared: NULL, or the value's text (integers and gsprof's big integers as written). */
function norm(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

/**
 * trace_processor's CSV: strings in double quotes (quotes inside are not escaped), numbers bare, NULL as "[NULL]".
 * A string field ends at a quote followed by a comma or the line's end; where a string holds `",` itself (JSON
 * in an arg, say), the line is split so that it gives the header's number of fields.
 */
function parseTpLine(line, nFields) {
  const split = (i, left) => {
    if (left === 0) return i > line.length ? [] : null;
    if (i > line.length) return null;
    if (line[i] === '"') {
      for (let j = line.indexOf('"', i + 1); j >= 0; j = line.indexOf('"', j + 1)) {
        if (j + 1 !== line.length && line[j + 1] !== ',') continue;
        const rest = split(j + 2, left - 1);
        if (rest) {
          const s = line.slice(i + 1, j);
          return [s === '[NULL]' ? 'NULL' : s.replaceAll(QUOTE_STAND_IN, '"'), ...rest];
        }
      }
      return null;
    }
    let j = line.indexOf(',', i);
    if (j < 0) j = line.length;
    const rest = split(j + 1, left - 1);
    return rest ? [line.slice(i, j), ...rest] : null;
  };
  return split(0, nFields) ?? [`unparsed: ${line}`];
}

/** One query's CSV block: the header (column names, quoted; all a query with no rows prints), then its rows. */
function tpBlock(text) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const nFields = parseTpLine(lines[0] ?? '', (lines[0] ?? '').split('","').length).length;
  return { rows: lines.slice(1).map((l) => parseTpLine(l, nFields).join('\t')) };
}

async function runTp(tp, trace, sql, tmp) {
  const file = join(tmp, 'q.sql');
  writeFileSync(file, `${sql.replace(/\s+/g, ' ').trim()};\n`);
  const r = await run(tp, ['-q', file, trace]);
  if (r.code !== 0) return { error: lastLines(r.stderr) };
  return tpBlock(r.stdout);
}

/**
 * Every query in one trace_processor run (it loads the trace once and prints each statement's result, a blank
 * line between them). Where that does not give one block per query (a failing statement, a blank line inside a
 * value), each query runs alone.
 */
async function runTpAll(tp, trace, sqls, tmp) {
  const file = join(tmp, 'all.sql');
  writeFileSync(file, sqls.map((sql) => `${sql.replace(/\s+/g, ' ').trim()};\n`).join(''));
  const r = await run(tp, ['-q', file, trace]);
  const blocks = r.stdout.replace(/\n$/, '').split('\n\n');
  if (r.code === 0 && blocks.length === sqls.length) return blocks.map(tpBlock);
  const results = [];
  for (const sql of sqls) results.push(await runTp(tp, trace, sql, tmp));
  return results;
}

/** The library of the checkout whose CLI is `cli` (packages/cli/bin/run.js -> packages/profiler/dist). */
async function gsprofLibrary(cli) {
  const lib = resolve(dirname(cli), '../../profiler/dist/index.js');
  if (!existsSync(lib)) usage(`gsprof library not built at ${lib} (run npx tsc -b)`);
  return import(pathToFileURL(lib).href);
}

async function runGsprof(db, sql) {
  if (db.error) return { error: db.error };
  try {
    const out = await db.query(sql);
    return { rows: out.rows.map((row) => out.columns.map((c) => norm(row[c])).join('\t')) };
  } catch (e) {
    return { error: lastLines(String(e.message ?? e)) };
  }
}

function lastLines(text) {
  return text.trim().split('\n').slice(-3).join(' | ');
}

/** Rows in one side's multiset and not the other's. */
function multisetDiff(a, b) {
  const counts = new Map();
  for (const r of b) counts.set(r, (counts.get(r) ?? 0) + 1);
  const only = [];
  for (const r of a) {
    const n = counts.get(r) ?? 0;
    if (n > 0) counts.set(r, n - 1);
    else only.push(r);
  }
  return only;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const queries = opts.only ? QUERIES.filter((q) => opts.only.includes(q.id)) : QUERIES;
  const tmp = mkdtempSync(join(tmpdir(), 'tp-compare-'));
  const { openTrace } = await gsprofLibrary(opts.cli);
  const results = [];
  let anyDiff = false;
  try {
    for (const trace of opts.traces) {
      console.log(`== ${trace}`);
      const db = await openTrace(trace).catch((e) => ({ error: lastLines(String(e.message ?? e)), close() {} }));
      const tpResults = await runTpAll(opts.tp, trace, [...queries.map((q) => sqlFor(q, 'tp')), TP_NAMED_IDS], tmp);
      const gStrings = await runGsprof(db, GSPROF_STRING_IDS);
      const gNumeric = await runGsprof(db, GSPROF_NUMERIC_IDS);
      const tpNamed = tpResults.pop();
      const idMaps = stringIdMaps(gStrings.rows ?? [], gNumeric.rows ?? [], tpNamed.rows ?? []);
      for (const [i, q] of queries.entries()) {
        const g = await runGsprof(db, sqlFor(q, 'gsprof'));
        const t = tpResults[i];
        if (g.rows) g.rows = g.rows.map((r) => withStringIds(r, q.ids, idMaps.gsprof));
        if (t.rows) t.rows = t.rows.map((r) => withStringIds(r, q.ids, idMaps.tp));
        let status = 'equal';
        const lines = [];
        if (g.error || t.error) {
          status = 'error';
          if (g.error) lines.push(`gsprof error: ${g.error}`);
          if (t.error) lines.push(`trace_processor error: ${t.error}`);
        } else {
          const onlyG = multisetDiff(g.rows, t.rows).sort();
          const onlyT = multisetDiff(t.rows, g.rows).sort();
          if (onlyG.length > 0 || onlyT.length > 0) {
            status = 'differs';
            lines.push(`rows: gsprof ${g.rows.length}, trace_processor ${t.rows.length}`);
            for (const r of onlyG.slice(0, opts.rows)) lines.push(`- gsprof only: ${r}`);
            if (onlyG.length > opts.rows) lines.push(`  (${onlyG.length - opts.rows} more gsprof-only rows)`);
            for (const r of onlyT.slice(0, opts.rows)) lines.push(`+ trace_processor only: ${r}`);
            if (onlyT.length > opts.rows) lines.push(`  (${onlyT.length - opts.rows} more trace_processor-only rows)`);
          }
        }
        if (status !== 'equal') anyDiff = true;
        results.push({ trace, query: q.id, status });
        console.log(`  ${q.id}: ${status}`);
        for (const l of lines) console.log(`      ${l}`);
      }
      await db.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (opts.markdown) printMarkdown(results, queries);
  const counts = { equal: 0, differs: 0, error: 0 };
  for (const r of results) counts[r.status]++;
  console.log(`tp-compare: ${counts.equal} equal, ${counts.differs} differ, ${counts.error} failed`);
  process.exit(anyDiff ? 1 : 0);
}

/** A trace x query table: `=` equal, `≠` differs, `E` a side failed. */
function printMarkdown(results, queries) {
  const mark = { equal: '=', differs: '≠', error: 'E' };
  console.log(`\n| trace | ${queries.map((q) => q.id).join(' | ')} |`);
  console.log(`|---|${queries.map(() => ':-:').join('|')}|`);
  const traces = [...new Set(results.map((r) => r.trace))];
  for (const t of traces) {
    const cells = queries.map((q) => mark[results.find((r) => r.trace === t && r.query === q.id).status]);
    console.log(`| ${t.split('/').pop()} | ${cells.join(' | ')} |`);
  }
}

await main();
