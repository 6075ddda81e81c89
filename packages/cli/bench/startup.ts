/**
 * gsprof start-up cost: wall time of the built binary for commands that do little work, next to a bare
 * `node -e 0`, interleaved round-robin so machine load hits every variant alike. Median of N runs each.
 *   node --conditions=@gsprof/source --import tsx packages/cli/bench/startup.ts [runs]
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = join(root, 'packages/cli/bin/run.js');
const runs = Number(process.argv[2] ?? 10);
const variants: Array<[string, string[]]> = [
  ['node -e 0', ['-e', '0']],
  ['gsprof --version', [bin, '--version']],
  ['gsprof --help', [bin, '--help']],
  ['gsprof summary --help', [bin, 'summary', '--help']],
  ['gsprof summary <small trace>', [bin, 'summary', join(root, 'traces/franka-cpu.pftrace')]],
];
const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, args] of variants) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
    if (r.status !== 0) throw new Error(`${name} exited with ${r.status}`);
    times.get(name)!.push(performance.now() - t0);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times.get('node -e 0')!);
console.log(`| command | median wall (ms) | over node -e 0 (ms) |`);
console.log(`|---|---:|---:|`);
for (const [name] of variants) {
  const m = median(times.get(name)!);
  console.log(`| \`${name}\` | ${m.toFixed(0)} | ${name === 'node -e 0' ? '-' : `+${(m - base).toFixed(0)}`} |`);
}
console.log(`\n${runs} runs each, interleaved; load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
