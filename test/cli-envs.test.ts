/**
 * The real gsprof binary on an unstable scene (issue 30): a two-link arm whose position actuators (kp 1e7) chase
 * random targets diverges within about ten steps. `record --reset-on-error` resets its envs and goes on, and
 * says how often; without it the run stops with one line naming the way on; `envs` reads the recording back;
 * `--no-physics-counters` leaves the tracks out; `envs` on a trace without them, or on a Kineto trace, is one
 * line and exit 2.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gsprof, tempDir, type CliRun } from './support/cli.js';
import { hasShared, sharedPath } from './support/shared.js';

const SCENE = 'test/fixtures/unstable-arm.xml';
const args = (out: string, ...more: string[]): string[] => [
  'record', '--scene', SCENE, '--backend', 'cpu', '--n-envs', '2', '--steps', '30', '--control', 'random:3', '--no-fps', '--format', 'perfetto', '--out', out, ...more,
];

describe('record --reset-on-error, then envs', () => {
  let dir: string;
  let rec: CliRun;

  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir();
    rec = await gsprof(args(join(dir, 'reset'), '--reset-on-error'));
  });

  it('goes on past the failing envs and says how many were reset and how often', () => {
    expect(rec.stderr).not.toMatch(/^gsprof: (?!warning)/m);
    expect(rec.code).toBe(0);
    // The check every 10 steps finds both envs non-finite and resets them; they diverge again after each reset.
    expect(rec.stdout).toMatch(/^env resets: \d+ \(nan \d+(, limit \d+)?\) of 2 envs, at most \d+ of one env; `gsprof envs` on the trace lists them$/m);
  });

  it('envs lists the reset envs with their history, and its json has totalResets equal to what record said', async () => {
    const total = Number(/^env resets: (\d+)/m.exec(rec.stdout)?.[1]);
    const json = await gsprof(['envs', join(dir, 'reset'), '--format', 'json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as { totalResets: number; nEnvs: number; envs: { env: number; resets: { step: number }[]; lookAt: number[] }[]; correlation: { n: number } };
    expect(data.totalResets).toBe(total);
    expect(data.totalResets).toBeGreaterThan(0);
    expect(data.nEnvs).toBe(2);
    expect(data.envs.map((e) => e.env).sort()).toEqual([0, 1]);
    // Resets are found by the check after every tenth step (scene steps 9, 19, ...: the first step is taken before
    // the recording, so the recorded ones are named as the timeline names them).
    for (const e of data.envs) for (const r of e.resets) expect((r.step + 1) % 10).toBe(0);
    expect(data.correlation.n).toBeGreaterThan(10);
    const table = await gsprof(['envs', join(dir, 'reset')]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^2 envs, \d+ steps; \d+ env resets \(nan \d+/m);
    expect(table.stdout).toContain('Histogram of per-env solver iterations summed over the steps');
    expect(table.stdout).toMatch(/Step time against 'solver iterations \(max\)': Pearson r = -?\d\.\d\d over \d+ steps\./);
    const csv = await gsprof(['envs', join(dir, 'reset'), '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('env,iterations_total,iterations_mean,iterations_max,iterations_max_step,contacts_mean,contacts_max,resets,reset_steps,nan,nan_steps,not_converged,look_at_steps');
  });

  it('without --reset-on-error the run stops at the check with one line, having written the steps until then', async () => {
    const out = join(dir, 'stop');
    const r = await gsprof(args(out));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('gsprof:'))).toEqual([
      expect.stringMatching(/^gsprof: record: Simulation failed by step 10: NaN\/Inf in the state of envs \[0, 1\].*; wrote .*\.pftrace \(the steps until then\); rerun with --reset-on-error to reset such envs and go on$/),
    ]);
    expect(readdirSync(out).some((f) => f.endsWith('.pftrace'))).toBe(true);
  });

  it('--no-physics-counters leaves the tracks and events out: envs says so in one line, exit 2', async () => {
    const out = join(dir, 'off');
    const r = await gsprof(args(out, '--reset-on-error', '--no-physics-counters'));
    expect(r.code).toBe(0);
    const e = await gsprof(['envs', out]);
    expect(e.code).toBe(2);
    expect(e.stderr.trim()).toMatch(/^gsprof: .*\.pftrace: no physics counters or env events in this trace \(.*\)$/);
  });

  it.skipIf(!hasShared())('envs on a Kineto trace: one line, exit 2', async () => {
    const e = await gsprof(['envs', sharedPath('traces', 'pytorch-kineto', 'trace_compare__base__base.json.gz')]);
    expect(e.code).toBe(2);
    expect(e.stderr.trim().split('\n')).toHaveLength(1);
    expect(e.stderr).toContain('no physics counters or env events in this trace');
  });
});
