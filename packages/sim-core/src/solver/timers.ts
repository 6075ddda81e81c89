/**
 * Slots of the per-env solver timers (Data.timers, TIMER_SLOTS x nEnvs, slot-major: timers[slot*nEnvs + e]),
 * written by the `solve` stage for every env at every step:
 * - solve_ns: wall-clock nanoseconds this env spent in the constraint solve: its own warm start and
 *   iterations, measured around them on the CPU backend, plus an equal share of the copying in and out of
 *   its block of 8 envs (Genesis' slot 0, there in GPU clock cycles).
 * - iterations: Newton/CG iterations this env ran (0 when it had no constraint rows).
 * - active_constraints: rows not in the satisfied state after the solve (quadratic or saturated friction).
 * - contacts: d.ncon of the env.
 * - ls_iterations: line-search cost evaluations summed over the iterations.
 * - nefc: constraint rows of the env.
 * - improvement: the scaled cost improvement of the env's last solver iteration (0 without one).
 * - not_converged: 1 when the solver stopped at its iteration limit with improvement and gradient still at or
 *   above the tolerance (MuJoCo's convergence test), else 0.
 * - reserved_8, reserved_9: always 0, kept so the shape matches Genesis' (10, n_envs).
 */
export const TIMER_LABELS = [
  'solve_ns', 'iterations', 'active_constraints', 'contacts', 'ls_iterations', 'nefc',
  'improvement', 'not_converged', 'reserved_8', 'reserved_9',
] as const;

export type TimerLabel = (typeof TIMER_LABELS)[number];

export const TIMER_SOLVE_NS = 0;
export const TIMER_ITERATIONS = 1;
export const TIMER_ACTIVE = 2;
export const TIMER_CONTACTS = 3;
export const TIMER_LS_ITERATIONS = 4;
export const TIMER_NEFC = 5;
export const TIMER_IMPROVEMENT = 6;
export const TIMER_NOT_CONVERGED = 7;
