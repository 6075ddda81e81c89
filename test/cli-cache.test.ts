/**
 * The import cache from the command line (issue 12): the first command on a trace keeps its imported tables,
 * the next commands reuse them with the same output, and `--no-cache` imports again and keeps nothing.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir } from './support/cli.js';

describe('gsprof import cache', () => {
  let trace: string;
  beforeAll(async () => {
    ensureBuilt();
    const dir = tempDir();
    const r = await gsprof(['record', '--example', 'franka', '--backend', 'cpu', '--n-envs', '4', '--steps', '30', '--out', dir, '--format', 'perfetto']);
    expect(r.code, r.stderr).toBe(0);
    trace = join(dir, readdirSync(dir).find((f) => f.endsWith('.pftrace'))!);
  });

  it('summary keeps one entry, gaps and a second summary reuse it, output unchanged; --no-cache keeps none', async () => {
    const cache = tempDir();
    const env = { GSPROF_CACHE_DIR: cache };
    const entries = (): string[] => readdirSync(cache).filter((f) => f.endsWith('.duckdb'));
    const first = await gsprof(['summary', trace, '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatch(/\.proto\.duckdb$/);
    const gaps = await gsprof(['gaps', trace, '--json'], { env });
    expect(gaps.code, gaps.stderr).toBe(0);
    const again = await gsprof(['summary', trace, '--json'], { env });
    expect(again.stdout).toBe(first.stdout);
    expect(entries()).toHaveLength(1);
    const fresh = tempDir();
    const noCache = await gsprof(['summary', trace, '--json', '--no-cache'], { env: { GSPROF_CACHE_DIR: fresh } });
    expect(noCache.stdout).toBe(first.stdout);
    expect(readdirSync(fresh)).toEqual([]);
    const q = await gsprof(['query', trace, 'select count(*) as n from slice', '--format', 'csv', '--no-cache'], { env: { GSPROF_CACHE_DIR: fresh } });
    expect(q.code, q.stderr).toBe(0);
    expect(readdirSync(fresh)).toEqual([]);
  });
});
