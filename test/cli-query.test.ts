/** `gsprof query` end to end: columns kept apart, read-only, limits, streaming, and no temporary database left behind. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, ensureBuilt, gsprof, tempDir } from './support/cli.js';

let dir: string;
let trace: string;

beforeAll(() => {
  ensureBuilt();
  dir = tempDir();
  trace = join(dir, 't.json');
  writeFileSync(trace, JSON.stringify({ traceEvents: [
    { ph: 'X', name: 'outer', pid: 1, tid: 1, ts: 10, dur: 50 },
    { ph: 'X', name: 'inner', pid: 1, tid: 1, ts: 20, dur: 5 },
  ] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gsprof query', () => {
  it('keeps duplicate column names apart in every format', async () => {
    const csv = await gsprof(['query', trace, 'select 1 as a, 2 as a', '--format', 'csv']);
    expect(csv.stdout).toBe('a,a_1\n1,2\n');
    const sql = 'select s.name, p.name from slice s join slice p on s.parent_id = p.id';
    const table = await gsprof(['query', trace, sql]);
    expect(table.stdout).toMatch(/│ name\s+│ name_1\s+│\n│ inner\s+│ outer\s+│/);
    const json = JSON.parse((await gsprof(['query', trace, sql, '--json'])).stdout) as unknown;
    expect(json).toEqual({ trace, columns: ['name', 'name_1'], rows: [{ name: 'inner', name_1: 'outer' }] });
    const empty = JSON.parse((await gsprof(['query', trace, 'select name from slice where false', '--json'])).stdout) as unknown;
    expect(empty).toEqual({ trace, columns: ['name'], rows: [] });
  });

  it('streams every csv row of a result far larger than one chunk', async () => {
    const r = await gsprof(['query', trace, 'select range as i from range(100000)', '--format', 'csv']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(100001);
    expect(lines[0]).toBe('i');
    expect(new Set(lines.slice(1)).size).toBe(100000);
  });

  it('gives one line for an empty query, a wrapped write and a query past its time limit', async () => {
    for (const [args, msg] of [
      [[''], /^gsprof: query: empty query: give one SQL statement/],
      [['explain analyze delete from slice'], /^gsprof: query: only read-only queries are allowed/],
      [['select count(*) from range(100000000000)', '--timeout', '1'], /^gsprof: query: query stopped after its time limit of 1 s/],
      // Streaming rows when the limit comes: exit 2 too, never a cut-off result with exit 0.
      [['select * from range(100000000000)', '--timeout', '1', '--format', 'csv'], /^gsprof: query: query stopped after its time limit of 1 s/],
    ] as const) {
      const r = await gsprof(['query', trace, ...args]);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), args[0]).toHaveLength(1);
      expect(r.stderr, args[0]).toMatch(msg);
    }
  });

  it('removes its temporary database on SIGTERM, and the next run removes those of killed runs', async () => {
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    // the temporary database of an import: no import cache, which would open a kept one instead
    const env = cliEnv({ TMPDIR: tmp, GSPROF_NO_CACHE: '1' });
    // A folder left by a run that was SIGKILLed: its pid is dead.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const stale = join(tmp, 'gsprof-trace-stale1');
    mkdirSync(stale);
    writeFileSync(join(stale, 'pid'), dead);
    writeFileSync(join(stale, 'trace.duckdb'), 'x');
    const child = spawn(process.execPath, [BIN, 'query', trace, 'select count(*) from range(100000000000)'], { env, stdio: 'ignore' });
    const started = Date.now();
    let mine: string[] = [];
    while (Date.now() - started < 60_000) {
      mine = readdirSync(tmp).filter((n) => n.startsWith('gsprof-trace-') && existsSync(join(tmp, n, 'trace.duckdb')));
      if (mine.length === 1 && !existsSync(stale)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(existsSync(stale)).toBe(false);
    expect(mine).toHaveLength(1);
    const code = await new Promise<NodeJS.Signals | null>((resolve) => { child.on('exit', (_c, sig) => resolve(sig)); child.kill('SIGTERM'); });
    expect(code).toBe('SIGTERM');
    expect(readdirSync(tmp).filter((n) => n.startsWith('gsprof-trace-'))).toEqual([]);
  });
});

describe('gsprof convert and diff guards', () => {
  it('convert refuses to overwrite its input, also through a link, and leaves it intact', async () => {
    const { readFileSync, symlinkSync } = await import('node:fs');
    const before = readFileSync(trace);
    const link = join(dir, 'link.json');
    symlinkSync(trace, link);
    for (const out of [trace, link]) {
      const r = await gsprof(['convert', trace, out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr, out).toMatch(/is an input of convert.*; convert never writes over its own input/);
      expect(readFileSync(trace).equals(before), out).toBe(true);
    }
  });

  it('diff --iteration compares one ProfilerStep and refuses a step a trace lacks', async () => {
    const steps = join(dir, 'steps.json');
    const ev = (name: string, ts: number, dur: number): object => ({ ph: 'X', name, cat: name.startsWith('Profiler') ? 'user_annotation' : 'cpu_op', pid: 1, tid: 1, ts, dur });
    writeFileSync(steps, JSON.stringify({ traceEvents: [
      ev('ProfilerStep#1', 0, 100), ev('aten::add', 10, 5),
      ev('ProfilerStep#2', 200, 100), ev('aten::mul', 210, 5), ev('aten::mul', 230, 5),
    ] }));
    const other = join(dir, 'steps2.json');
    writeFileSync(other, JSON.stringify({ traceEvents: [
      ev('ProfilerStep#1', 0, 100), ev('aten::add', 10, 7),
      ev('ProfilerStep#2', 200, 100), ev('aten::mul', 210, 5),
    ] }));
    const all = JSON.parse((await gsprof(['diff', steps, other, '--json'])).stdout) as { ops: { rows: Array<{ name: string }> } };
    expect(all.ops.rows.map((r) => r.name)).toContain('aten::mul');
    const one = JSON.parse((await gsprof(['diff', steps, other, '--iteration', '1', '--json'])).stdout) as { ops: { rows: Array<{ name: string; controlCount: number; testCount: number; diffDurNs: number }> } };
    expect(one.ops.rows.map((r) => r.name)).not.toContain('aten::mul');
    expect(one.ops.rows.find((r) => r.name === 'aten::add')).toMatchObject({ controlCount: 1, testCount: 1, diffDurNs: 2000 });
    const missing = await gsprof(['diff', steps, other, '--iteration', '7']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/has no ProfilerStep#7 \(--iteration\)/);
  });
});
