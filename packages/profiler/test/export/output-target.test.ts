/** Every writer goes through FileSink/outputTarget: device nodes, FIFOs and symlinks are never replaced. */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeBaseline, type Baseline } from '../../src/analysis/baseline.js';
import { outputTarget, writeFileAtomic } from '../../src/export/file-sink.js';
import { writeChromeTrace, writePerfettoTrace } from '../../src/export/index.js';
import { sampleTrace } from './fixtures.js';

const dirs: string[] = [];
const tempDir = (): string => { const d = mkdtempSync(join(tmpdir(), 'gsprof-target-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function fifo(dir: string): string {
  const path = join(dir, 'pipe');
  execFileSync('mkfifo', [path]);
  return path;
}

describe('atomic output never replaces a non-regular file', () => {
  it('refuses a character device, and leaves it a device', async () => {
    // As root a rename over a device node (/dev/full, /dev/stdout) would replace it, so root tests a node of its
    // own (a copy of /dev/null made with mknod); anyone else tests /dev/null, which they cannot replace anyway.
    let device = '/dev/null';
    if (process.getuid?.() === 0) {
      device = join(tempDir(), 'null');
      execFileSync('mknod', [device, 'c', '1', '3']);
    }
    await expect(writeFileAtomic(device, 'x')).rejects.toThrow(/^cannot write \S*null: it is a device; refusing to replace it$/);
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
  });

  it('refuses a FIFO for traces, baselines and plain files, without blocking on it', async () => {
    const dir = tempDir();
    const p = fifo(dir);
    await expect(writePerfettoTrace(sampleTrace(1), p)).rejects.toThrow(/pipe: it is a FIFO/);
    await expect(writeChromeTrace(sampleTrace(1), p)).rejects.toThrow(/pipe: it is a FIFO/);
    await expect(writeBaseline(p, { format: 'gsprof-baseline', version: 1 } as unknown as Baseline)).rejects.toThrow(/pipe: it is a FIFO/);
    expect(lstatSync(p).isFIFO()).toBe(true);
  });

  it('refuses a directory', async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(dir, 'x')).rejects.toThrow(/it is a directory/);
  });

  it('writes through a symlink to a regular file and keeps the link', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'real.json'), 'old');
    symlinkSync('real.json', join(dir, 'link.json'));
    await writeFileAtomic(join(dir, 'link.json'), 'new');
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.json'))).toBe('real.json');
    expect(readFileSync(join(dir, 'real.json'), 'utf8')).toBe('new');
  });

  it('refuses a symlink to a device or a FIFO, and keeps the link', async () => {
    const dir = tempDir();
    symlinkSync('/dev/null', join(dir, 'null-link'));
    symlinkSync(fifo(dir), join(dir, 'fifo-link'));
    await expect(writeFileAtomic(join(dir, 'null-link'), 'x')).rejects.toThrow(/null-link: it points to a device/);
    await expect(writeChromeTrace(sampleTrace(1), join(dir, 'fifo-link'))).rejects.toThrow(/fifo-link: it points to a FIFO/);
    expect(lstatSync(join(dir, 'null-link')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'fifo-link')).isSymbolicLink()).toBe(true);
  });

  it('a dangling symlink is written through: the file it names is created', async () => {
    const dir = tempDir();
    symlinkSync('made.json', join(dir, 'dangling'));
    expect(await outputTarget(join(dir, 'dangling'))).toBe(join(dir, 'made.json'));
    await writeFileAtomic(join(dir, 'dangling'), 'x');
    expect(readFileSync(join(dir, 'made.json'), 'utf8')).toBe('x');
    expect(lstatSync(join(dir, 'dangling')).isSymbolicLink()).toBe(true);
  });
});
