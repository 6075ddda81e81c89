/**
 * Perfetto's trace_processor_shell as the tests' reference: where it is present (TRACE_PROCESSOR, else
 * ../shared/tools/trace_processor_shell), a test runs its SQL there too and checks that trace_processor gives
 * the rows the test expects of gsprof. Absent, the tests check gsprof against the expected rows alone (which were
 * read off trace_processor_shell v58.2), and say so once; under CI=true its absence is a failure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openTrace } from '../../../src/index.js';
import { SHARED_DIR } from '../../../../../test/support/shared.js';

let found: string | null | undefined;

/** The trace_processor_shell to check against, or null (with a printed reason) where there is none. */
export function traceProcessor(): string | null {
  if (found !== undefined) return found;
  const path = process.env.TRACE_PROCESSOR ?? join(SHARED_DIR, 'tools', 'trace_processor_shell');
  let reason = `not found at ${path}`;
  if (existsSync(path)) {
    try {
      execFileSync(path, ['--version'], { stdio: 'pipe' });
      found = path;
      return found;
    } catch (e) {
      reason = `does not start (${String((e as Error).message).split('\n')[0]})`;
    }
  }
  if (process.env.CI === 'true') throw new Error(`CI=true but trace_processor_shell ${reason}`);
  console.warn(`trace_processor_shell ${reason}: checking gsprof against the expected rows only`);
  found = null;
  return found;
}

/** One CSV field of trace_processor's output: a quoted string, a number, or [NULL]. */
function field(text: string): string | number | null {
  if (text === '"[NULL]"') return null;
  if (text.startsWith('"')) return text.slice(1, -1);
  return Number(text);
}

/**
 * Runs one query on a trace in trace_processor_shell and returns its rows as arrays of values in column order.
 * Strings must not hold `",` (its CSV does not escape quotes): the tests' names do not.
 */
export function tpRows(tp: string, trace: string, sql: string): (string | number | null)[][] {
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-tp-'));
  try {
    const file = join(dir, 'q.sql');
    writeFileSync(file, `${sql.replace(/\s+/g, ' ').trim()};\n`);
    const out = execFileSync(tp, ['-q', file, trace], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    const lines = out.split('\n').filter((l) => l.length > 0).slice(1);
    return lines.map((l) => (l.match(/"(?:[^"]|"(?!,|$))*"|[^,]+/g) ?? []).map(field));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Cell = string | number | null;
const norm = (rows: Cell[][]): (string | null)[][] => rows.map((r) => r.map((v) => (v === null ? null : String(v))));

/** The SQL's rows in gsprof, and in trace_processor where it is present; both must be `expected`. */
export async function expectRows(path: string, sql: string, expected: Cell[][]): Promise<void> {
  const db = await openTrace(path);
  try {
    const { columns, rows } = await db.query(sql);
    expect(norm(rows.map((r) => columns.map((c) => r[c] as Cell))), 'gsprof').toEqual(norm(expected));
  } finally {
    await db.close();
  }
  const tp = traceProcessor();
  if (tp) expect(norm(tpRows(tp, path, sql)), 'trace_processor_shell').toEqual(norm(expected));
}
