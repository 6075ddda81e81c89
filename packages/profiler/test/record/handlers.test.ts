import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { logger } from '@gsprof/log';
import { FakeClock, perfettoTraceHandler, profile, recordFunction, schedule, tensorboardTraceHandler, type TraceReadyHandler } from '../../src/record/index.js';

const dirs: string[] = [];
const tempDir = (): string => { const d = mkdtempSync(join(tmpdir(), 'gsprof-handlers-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

interface ChromeTrace { traceEvents: { name: string; ph: string; cat?: string }[] }

async function recordTwoCycles(onTraceReady: TraceReadyHandler) {
  logger.setSink(() => {});
  const clock = new FakeClock();
  const prof = profile({ activities: ['cpu'], clock, schedule: schedule({ wait: 0, warmup: 0, active: 1, repeat: 2 }), onTraceReady });
  await prof.start();
  const written: string[][] = [];
  for (let i = 0; i < 3; i++) {
    { using _ = recordFunction('work'); clock.advance(1e6); }
    await prof.step();
    written.push([...prof.lastTracePaths]);
  }
  await prof.stop();
  vi.restoreAllMocks();
  logger.setSink(null);
  return { prof, written };
}

describe('trace handlers', () => {
  it('tensorboardTraceHandler writes {worker}.{time_ns}.pt.trace.json per cycle and records the paths', async () => {
    const dir = tempDir();
    const { prof, written } = await recordTwoCycles(tensorboardTraceHandler(dir, { workerName: 'rank0' }));
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^rank0\.\d{19}\.pt\.trace\.json$/);
    // lastTracePaths names the files of the last trace handed over, until the next one.
    expect(written.map((w) => w.map((p) => basename(p)))).toEqual([[files[0]], [files[1]], [files[1]]]);
    expect(prof.tracePaths.map((p) => basename(p))).toEqual(files);
    const first = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as ChromeTrace;
    expect(first.traceEvents.some((e) => e.name === 'ProfilerStep#0' && e.cat === 'user_annotation')).toBe(true);
    expect(first.traceEvents.some((e) => e.name === 'work')).toBe(true);
  });

  it('useGzip writes .pt.trace.json.gz; the worker defaults to hostname_pid', async () => {
    const dir = tempDir();
    await recordTwoCycles(tensorboardTraceHandler(dir, { useGzip: true }));
    const files = readdirSync(dir);
    const prefix = `${hostname()}_${process.pid}.`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const f of files) expect(f).toMatch(new RegExp(`^${prefix}\\d{19}\\.pt\\.trace\\.json\\.gz$`));
    const trace = JSON.parse(gunzipSync(readFileSync(join(dir, files[0]!))).toString('utf8')) as ChromeTrace;
    expect(trace.traceEvents.some((e) => e.name === 'ProfilerStep#0')).toBe(true);
  });

  it('perfettoTraceHandler writes {worker}.{time_ns}.pftrace (a protobuf Trace: field 1 packets)', async () => {
    const dir = tempDir();
    const { prof } = await recordTwoCycles(perfettoTraceHandler(dir, { workerName: 'w' }));
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^w\.\d{19}\.pftrace$/);
    const bytes = readFileSync(join(dir, files[0]!));
    expect(bytes[0]).toBe(0x0a);
    expect(bytes.includes(Buffer.from('ProfilerStep#0'))).toBe(true);
    expect(prof.lastTracePaths).toEqual([join(dir, files[1]!)]);
  });
});

describe('Ctrl-C while recording (handleSigint)', () => {
  it('stops, writes a loadable trace of the steps so far, and exits 130', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--conditions=@gsprof/source', '--import', 'tsx', join(dirname(fileURLToPath(import.meta.url)), 'fixtures/sigint-child.ts'), dir], {
      cwd: join(dirname(fileURLToPath(import.meta.url)), '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('recording\n') && !child.killed) child.kill('SIGINT');
      });
      child.on('exit', (c) => resolve(c));
    });
    expect(code, `stdout: ${out}\nstderr: ${err}`).toBe(130);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^child\.\d{19}\.pt\.trace\.json$/);
    expect(out).toContain(`paths=${join(dir, files[0]!)}`);
    const trace = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as ChromeTrace;
    const steps = trace.traceEvents.filter((e) => e.name.startsWith('ProfilerStep#'));
    expect(steps.length).toBeGreaterThanOrEqual(5);
    expect(trace.traceEvents.filter((e) => e.name === 'work' && e.cat === 'kernel').length).toBeGreaterThanOrEqual(5);
  });
});
