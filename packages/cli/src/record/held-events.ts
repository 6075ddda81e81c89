/**
 * How many finished events a GPU recording holds in memory before it spills them to a temporary file (the
 * profiler's maxHeldEvents, issue 33), so that its memory does not grow with the number of steps.
 * GSPROF_RECORD_HELD_EVENTS overrides it (a small value makes a short run spill, as the tests do).
 */
import { CliError } from '../errors.js';

/** About 15 MB of events: 4,000 Franka steps' worth on the GPU; each spill writes them in tens of ms. */
const DEFAULT_HELD_EVENTS = 50_000;

export function recordHeldEvents(): number {
  const given = process.env.GSPROF_RECORD_HELD_EVENTS;
  if (given === undefined || given === '') return DEFAULT_HELD_EVENTS;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new CliError('GSPROF_RECORD_HELD_EVENTS', `must be a positive integer, got '${given}'`);
  return n;
}
