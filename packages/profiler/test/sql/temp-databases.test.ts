import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleTempDatabases } from '../../src/sql/trace-db.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-stale-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function folder(name: string, pid: string | null, ageHours = 0): string {
  const path = join(dir, `gsprof-trace-${name}`);
  mkdirSync(path);
  if (pid !== null) writeFileSync(join(path, 'pid'), pid);
  if (ageHours > 0) {
    const t = (Date.now() - ageHours * 3600e3) / 1000;
    utimesSync(path, t, t);
  }
  return path;
}

describe('removeStaleTempDatabases', () => {
  it('removes the folders of dead runs and keeps those of live or just-starting ones', () => {
    const deadPid = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const dead = folder('dead', deadPid);
    const live = folder('live', String(process.pid));
    // Another process between mkdtemp and writing its pid: concurrent gsprof commands must not delete it.
    const starting = folder('starting', '');
    const noPid = folder('nopid', null);
    const abandoned = folder('abandoned', '', 25);
    const removed = removeStaleTempDatabases(dir);
    expect(removed.sort()).toEqual([abandoned, dead].sort());
    for (const kept of [live, starting, noPid]) expect(existsSync(kept), kept).toBe(true);
  });
});
