/**
 * `gsprof export --format parquet`: the trace tables of one or many rank traces as Parquet files that DuckDB
 * writes (never a writer of our own), laid out as Hive partitions by rank, for DuckDB here and Spark, Trino or
 * Dask on a cluster (docs/cluster.md). Each trace is imported once (or found in the import cache) and its
 * database attached read-only to a writer DuckDB, which copies each table to `<table>/rank=<k>/part-0.parquet`.
 * One trace is one rank, so each COPY writes one partition folder directly; a table with no rows still gets its
 * (empty) file, so that a reader globbing `<table>/*\/*.parquet` always finds the schema.
 * The whole export is written in a temporary folder beside OUT and renamed into place: a reader never sees half
 * an export, and an interrupted one leaves OUT as it was.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { RankClaims, rankOf, type SkippedTrace } from '../analysis/rank.js';
import { openTrace, type OpenTraceOptions } from '../sql/trace-db.js';
import {
  EXPORT_FORMAT, EXPORT_MANIFEST, EXPORT_TABLES, PARQUET_SCHEMA_VERSION, exportTableSql, partitionDir,
  type ExportManifest, type ExportedRank,
} from './schema.js';

export interface ExportParquetOptions extends OpenTraceOptions {
  /** Called after each trace, exported or skipped (progress for many ranks). */
  onTrace?: (path: string, done: number, total: number) => void;
}

export interface ExportResult {
  out: string;
  ranks: ExportedRank[];
  skipped: SkippedTrace[];
}

/** The output folder cannot be written (it exists and is not an export), or nothing could be exported. */
export class ParquetExportError extends Error {
  override readonly name = 'ParquetExportError';
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** Whether `dir` is a folder an earlier export wrote (its manifest is there), so it may be replaced. */
function isExportFolder(dir: string): boolean {
  return existsSync(join(dir, EXPORT_MANIFEST));
}

/**
 * Exports `traces` (files) to the folder `out`. A trace that cannot be imported, that names no rank when there
 * are several, or whose rank another trace claims too, is skipped with its reason; the others are exported.
 * Throws ParquetExportError when none is left, or when `out` exists and is neither empty nor an export.
 */
export async function exportParquet(traces: string[], out: string, opts: ExportParquetOptions = {}): Promise<ExportResult> {
  out = resolve(out);
  if (existsSync(out) && !isExportFolder(out) && readdirSync(out).length > 0) {
    throw new ParquetExportError(`${out}: exists and is not a gsprof export; not overwritten (give a new or empty folder)`);
  }
  await mkdir(dirname(out), { recursive: true });
  const staging = await mkdtemp(join(dirname(out), `.${basename(out)}.tmp-`));
  const spill = await mkdtemp(join(tmpdir(), 'gsprof-export-'));
  const writer = await DuckDBInstance.create(':memory:', {
    memory_limit: opts.memoryLimit ?? '1GB',
    threads: String(opts.threads ?? 2),
    temp_directory: spill,
    preserve_insertion_order: 'false',
  });
  const conn = await writer.connect();
  const ranks: ExportedRank[] = [];
  const claims = new RankClaims(traces.length);
  try {
    for (const [i, path] of traces.entries()) {
      try {
        await exportOne(conn, path, staging, ranks, claims, opts);
      } catch (err) {
        claims.skip(path, firstLine(err));
      }
      opts.onTrace?.(path, i + 1, traces.length);
    }
    const skipped = claims.skipped;
    if (ranks.length === 0) throw new ParquetExportError(`nothing exported: ${skipped.map((s) => `${s.path}: ${s.reason}`).join('; ')}`);
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      schema_version: PARQUET_SCHEMA_VERSION,
      tables: EXPORT_TABLES.map((t) => t.name),
      ranks: ranks.sort((a, b) => a.rank - b.rank),
      skipped,
    };
    await writeFile(join(staging, EXPORT_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await replaceFolder(staging, out);
    return { out, ranks, skipped };
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  } finally {
    conn.closeSync();
    writer.closeSync();
    await rm(spill, { recursive: true, force: true });
  }
}

/** Exports one trace's tables as its rank's partitions, unless its rank claim fails. */
async function exportOne(
  conn: Awaited<ReturnType<DuckDBInstance['connect']>>, path: string, staging: string, ranks: ExportedRank[], claims: RankClaims,
  opts: OpenTraceOptions,
): Promise<void> {
  const db = await openTrace(path, opts);
  try {
    const found = await rankOf(db);
    const { rank, evicted } = claims.claim(path, found);
    if (evicted !== null) {
      ranks.splice(ranks.findIndex((r) => r.rank === evicted), 1);
      for (const t of EXPORT_TABLES) await rm(partitionDir(staging, t.name, evicted), { recursive: true, force: true });
    }
    if (rank === null) return;
    const rows: Record<string, number> = {};
    await conn.run(`ATTACH ${sqlString(db.databaseFile)} AS rank_trace (READ_ONLY)`);
    try {
      for (const t of EXPORT_TABLES) {
        const dir = partitionDir(staging, t.name, rank);
        await mkdir(dir, { recursive: true });
        const copied = await conn.runAndReadAll(
          `COPY (${exportTableSql(t, 'rank_trace')}) TO ${sqlString(join(dir, 'part-0.parquet'))} (FORMAT parquet, COMPRESSION snappy)`);
        rows[t.name] = Number(copied.getRows()[0]?.[0] ?? 0);
      }
    } finally {
      await conn.run('DETACH rank_trace');
    }
    ranks.push({ rank, worldSize: found?.worldSize ?? null, source: path, rows });
  } finally {
    await db.close();
  }
}

/** Puts the finished export at `out`: an earlier export (or an empty folder) there is replaced whole. */
async function replaceFolder(staging: string, out: string): Promise<void> {
  if (!existsSync(out)) {
    await rename(staging, out);
    return;
  }
  const old = `${staging}.old`;
  await rename(out, old);
  await rename(staging, out);
  await rm(old, { recursive: true, force: true });
}

/** The manifest of an export folder, checked: an export of a newer schema is refused. */
export async function readExportManifest(dir: string): Promise<ExportManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, EXPORT_MANIFEST), 'utf8');
  } catch {
    throw new ParquetExportError(`${dir}: not a gsprof export (no ${EXPORT_MANIFEST})`);
  }
  let m: Partial<ExportManifest>;
  try {
    m = JSON.parse(text) as Partial<ExportManifest>;
  } catch (err) {
    throw new ParquetExportError(`${join(dir, EXPORT_MANIFEST)}: not JSON (${firstLine(err)})`);
  }
  if (m.format !== EXPORT_FORMAT || !Number.isSafeInteger(m.schema_version) || !Array.isArray(m.ranks)) {
    throw new ParquetExportError(`${join(dir, EXPORT_MANIFEST)}: not a gsprof export manifest`);
  }
  if (m.schema_version! > PARQUET_SCHEMA_VERSION) {
    throw new ParquetExportError(`${dir}: written by a newer gsprof (export schema version ${m.schema_version}; this gsprof reads up to ${PARQUET_SCHEMA_VERSION}): update gsprof`);
  }
  if (m.schema_version !== PARQUET_SCHEMA_VERSION) {
    throw new ParquetExportError(`${dir}: export schema version ${m.schema_version}, older than this gsprof's ${PARQUET_SCHEMA_VERSION}: export the traces again`);
  }
  return m as ExportManifest;
}
