import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveTrace } from '../src/views/open-trace.js';

let dir = '';
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function folder(): string {
  dir = mkdtempSync(join(tmpdir(), 'gsprof-resolve-'));
  return dir;
}

describe('a folder argument resolves only to a trace', () => {
  it('never to a baseline, even a newer one (the README compare example leaves one next to the trace)', () => {
    const d = folder();
    writeFileSync(join(d, 'run.pt.trace.json'), '[]');
    utimesSync(join(d, 'run.pt.trace.json'), new Date(1_000_000), new Date(1_000_000));
    writeFileSync(join(d, 'baseline.json'), JSON.stringify({ format: 'gsprof-baseline', version: 1, steps: [] }, null, 1));
    expect(resolveTrace(d)).toBe(join(d, 'run.pt.trace.json'));
  });

  it('says so when the folder holds only baselines', () => {
    const d = folder();
    writeFileSync(join(d, 'base.json'), JSON.stringify({ format: 'gsprof-baseline', version: 1 }));
    expect(() => resolveTrace(d)).toThrow(/folder has no trace .*baselines are not traces/);
  });

  it('only to regular files: a FIFO named *.pftrace is passed over (reading it would block), and refused when named', () => {
    if (process.platform === 'win32') { console.log('skipped: no mkfifo on Windows'); return; }
    const d = folder();
    writeFileSync(join(d, 'old.pftrace'), 'x');
    utimesSync(join(d, 'old.pftrace'), new Date(1_000_000), new Date(1_000_000));
    execFileSync('mkfifo', [join(d, 'new.pftrace')]);
    expect(resolveTrace(d)).toBe(join(d, 'old.pftrace'));
    expect(() => resolveTrace(join(d, 'new.pftrace'))).toThrow(/not a regular file/);
  });
});
