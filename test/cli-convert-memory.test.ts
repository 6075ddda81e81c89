/**
 * convert streams (issue 15): it reads the imported tables in time order as it writes, so its memory does not
 * grow with the trace. Before, it built the whole trace as JS objects first: 6 GiB for a 1 GB JSON, and a
 * 200k-event trace did not convert with a 128 MB JS heap (it died of "heap out of memory"); now it converts
 * with 64 MB, both ways, keeping every slice, arg, flow and counter sample. And Ctrl-C while it writes leaves
 * the target as it was and no temporary file beside it.
 */
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, startGsprof, tempDir } from './support/cli.js';

const EVENTS = 200_000;

/** A Kineto-like trace: ops with args on 4 threads, a kernel and an ac2g flow every 10 ops, a counter every 100. */
async function writeTrace(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string): Promise<void> => new Promise((resolve) => { if (out.write(s)) resolve(); else out.once('drain', resolve); });
  await write('{"traceEvents":[\n{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"host"}}');
  let buf = '';
  for (let i = 0; i < n; i++) {
    const ts = i * 10;
    const tid = 1 + (i % 4);
    buf += `,\n{"ph":"X","cat":"cpu_op","name":"op${i % 50}","pid":1,"tid":${tid},"ts":${ts},"dur":8,"args":{"External id":${i},"Input Dims":[[${i % 7},3],[]],"Is Leaf":${i % 2 === 0}}}`;
    if (i % 10 === 0) {
      buf += `,\n{"ph":"s","cat":"ac2g","name":"ac2g","id":${i},"pid":1,"tid":${tid},"ts":${ts}}`;
      buf += `,\n{"ph":"X","cat":"kernel","name":"k${i % 5}","pid":1,"tid":9,"ts":${ts + 2},"dur":5}`;
      buf += `,\n{"ph":"f","cat":"ac2g","name":"ac2g","id":${i},"pid":1,"tid":9,"ts":${ts + 2},"bp":"e"}`;
    }
    if (i % 100 === 0) buf += `,\n{"ph":"C","name":"mem","pid":1,"ts":${ts},"args":{"bytes":${i}}}`;
    if (buf.length > 1 << 20) { await write(buf); buf = ''; }
  }
  await write(`${buf}\n]}\n`);
  await new Promise<void>((resolve) => out.end(resolve));
}

/** What the trace holds; a pftrace gsprof writes also carries its metadata as one instant, not counted. */
const COUNTS = `with s as (select * from slice where name <> 'gsprof.metadata')
  select (select count(*) from s) as slices, (select count(*) from args where arg_set_id in (select arg_set_id from s)) as args,
  (select count(*) from flow) as flows, (select count(*) from counter) as counters, (select sum(dur) from s) as total_dur`;

describe('convert in bounded memory', () => {
  let dir = '';
  let trace = '';
  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    trace = join(dir, 'big.json');
    await writeTrace(trace, EVENTS);
  }, 120_000);

  it('converts a 200k-event trace both ways with a 64 MB JS heap, keeping every event', async () => {
    // Today's convert ran with a 40 MB heap; the old one died with 128 MB: 64 MB leaves room both ways.
    const env = { GSPROF_NO_CACHE: '1', NODE_OPTIONS: '--max-old-space-size=64' };
    const pf = join(dir, 'big.pftrace');
    const back = join(dir, 'back.json');
    for (const [from, to] of [[trace, pf], [pf, back]] as const) {
      const r = await gsprof(['convert', from, to], { env, timeoutMs: 300_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    const counts = async (f: string): Promise<string> => {
      const r = await gsprof(['query', f, COUNTS, '--format', 'csv'], { env: { GSPROF_NO_CACHE: '1' }, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    const original = await counts(trace);
    // 200k ops and 20k kernels; 4 args rows per op (one per leaf: the id, two dims, the flag); 20k flows; 2k samples.
    expect(original.split('\n')[1]!.split(',').slice(0, 4)).toEqual(['220000', '800000', '20000', '2000']);
    expect(await counts(pf)).toBe(original);
    expect(await counts(back)).toBe(original);
  }, 600_000);

  it('Ctrl-C while it writes leaves the target as it was, and no temporary file', async () => {
    const target = join(dir, 'target.pftrace');
    writeFileSync(target, 'the previous file');
    const run = startGsprof(['convert', trace, target]);
    const started = Date.now();
    while (!existsSync(`${target}.partial`) && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(`${target}.partial`)).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(readFileSync(target, 'utf8')).toBe('the previous file');
    expect(existsSync(`${target}.partial`)).toBe(false);
  }, 180_000);
});
