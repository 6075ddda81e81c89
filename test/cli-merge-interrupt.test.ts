/**
 * Ctrl-C while `gsprof merge` writes (issue 33): the merged trace is written under a temporary name and renamed
 * only when complete, so an interrupted merge leaves the target as it was and no `.partial` file beside it.
 */
import { createWriteStream, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startGsprof, tempDir } from './support/cli.js';

/** Slices per rank: enough that the write lasts long enough to be interrupted (the .partial file is polled). */
const EVENTS = 60_000;

/** One rank's trace: ops on two threads and a kernel every 10 ops. */
async function writeRank(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string): Promise<void> => new Promise((resolve) => { if (out.write(s)) resolve(); else out.once('drain', resolve); });
  await write('{"traceEvents":[\n{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host"}}');
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += `,\n{"ph":"X","cat":"cpu_op","name":"op${i % 50}","pid":1,"tid":${1 + (i % 2)},"ts":${i * 10},"dur":8,"args":{"i":${i}}}`;
    if (i % 10 === 0) buf += `,\n{"ph":"X","cat":"kernel","name":"k${i % 5}","pid":1,"tid":9,"ts":${i * 10 + 2},"dur":5}`;
    if (buf.length > 1 << 20) { await write(buf); buf = ''; }
  }
  await write(`${buf}\n]}\n`);
  await new Promise<void>((resolve) => out.end(resolve));
}

describe('merge and Ctrl-C', () => {
  let dir = '';
  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    await writeRank(join(dir, 'a.json'), EVENTS);
    await writeRank(join(dir, 'b.json'), EVENTS);
  }, 120_000);

  it('SIGINT while it writes leaves the target as it was and no temporary file, exit 130', async () => {
    const target = join(dir, 'merged.pftrace');
    writeFileSync(target, 'the previous file');
    const run = startGsprof(['merge', join(dir, 'a.json'), join(dir, 'b.json'), '-o', target]);
    const started = Date.now();
    while (!existsSync(`${target}.partial`) && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(`${target}.partial`), run.output()).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(readFileSync(target, 'utf8')).toBe('the previous file');
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  }, 180_000);
});
