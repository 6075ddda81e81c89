/**
 * `query` on what it must not answer quietly (issue 33): a flawed trace warns and --strict refuses it; a trace
 * with no usable events says so; --memory-limit must be a size; the table format stops at 10,000 rows instead of
 * overflowing the stack; --timeout and --memory-limit hold even for one huge value DuckDB cannot interrupt.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, expectOneLineError, gsprof, tempDir } from './support/cli.js';

describe('gsprof query: limits and warnings', () => {
  let dir: string;
  let good: string;
  beforeAll(() => {
    ensureBuilt();
    dir = tempDir();
    good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ traceEvents: [{ ph: 'X', name: 'k', pid: 1, tid: 1, ts: 1, dur: 2 }] }));
  });

  it('a cut trace warns as the other commands do and --strict refuses it; no usable events says so', async () => {
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","name":"b","pid":1,"ti');
    const lenient = await gsprof(['query', cut, 'select count(*) as n from slice', '--format', 'csv', '--no-cache']);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout).toBe('n\n1\n');
    expect(lenient.stderr).toMatch(/^gsprof: warning: .*cut\.json: loaded with problems/);
    expectOneLineError(await gsprof(['query', cut, 'select 1', '--strict', '--no-cache']), /cut\.json/);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{"traceEvents":[{}]}');
    const none = await gsprof(['query', empty, 'select count(*) as n from slice', '--format', 'csv', '--no-cache']);
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/^gsprof: warning: .*empty\.json: no usable events/m);
  });

  it('--memory-limit lots is one clear line; a 3M-row table stops at 10,000 rows and says so', async () => {
    expectOneLineError(await gsprof(['query', good, 'select 1', '--memory-limit', 'lots']), /--memory-limit: 'lots' is not a size: give a number and a unit, e\.g\. 512MB/);
    const wide = await gsprof(['query', good, 'select * from range(3000000)', '--no-cache']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toMatch(/\(first 10000 rows shown; the table stops there: --format csv or json writes every row\)\n$/);
    expect(wide.stdout).toMatch(/│ 9999\s+│/);
    expect(wide.stdout).not.toMatch(/│ 10000\s+│/);
  });

  it('--timeout and --memory-limit stop a statement DuckDB cannot interrupt, within seconds, with one line', async () => {
    // repeat() builds one 400 MB value: DuckDB checks its interrupt only between chunks; before, this ran ~25 s past a 1 s limit.
    const started = Date.now();
    const slow = await gsprof(['query', good, "select repeat('x', 400000000) as s", '--timeout', '1', '--format', 'csv', '--no-cache']);
    const elapsed = (Date.now() - started) / 1000;
    // exit 2, as every refusal: the watchdog's SIGKILL of the query's process is turned into 2 by its supervisor
    expect(slow.code).toBe(2);
    expect(slow.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gsprof: query: query stopped after its time limit of 1 s/)]);
    // Start-up (a few s on a loaded 2-core machine) + 1 s + 2 s of grace + a second of margin for the check.
    expect(elapsed).toBeLessThan(15);
    const big = await gsprof(['query', good, "select repeat('x', 600000000) as s", '--memory-limit', '100MB', '--timeout', '0', '--format', 'csv', '--no-cache']);
    expect(big.code).toBe(2);
    expect(big.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gsprof: query: query stopped: it took more memory than its limit of 100 MB/)]);
  });
});
