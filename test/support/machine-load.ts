/**
 * How much slower than an idle core this machine runs right now, measured in the test's own process: a
 * CPU-bound loop runs for a fixed amount of CPU time and the wall time it took is divided by that CPU time.
 * About 1 on an idle core, about 2 when another process keeps every core busy, more on a crowded machine.
 * Tests that judge promptness multiply their time limits by it, so a limit says "this many times what the
 * machine delivered in the same run" instead of a number of seconds that only holds on an idle machine.
 */
export function slowdown(cpuMs = 200): number {
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  let sink = 0;
  for (;;) {
    for (let i = 0; i < 100_000; i++) sink += Math.sqrt(i);
    const used = process.cpuUsage(cpu0);
    if ((used.user + used.system) / 1000 >= cpuMs) break;
  }
  // The loop's result is used, so the work cannot be optimised away.
  if (Number.isNaN(sink)) throw new Error('unreachable');
  return Math.max(1, (performance.now() - wall0) / cpuMs);
}
