/**
 * WGSL of `physics_counters`: the reduction the GPU backend runs after a step's last substep when a profiler takes
 * per-step physics counters (gpu/step-stats.ts runs it and reads its record back). One invocation per env adds
 * the env's solver timers into a small record with atomics: iterations (max and sum), contacts (sum and max),
 * constraint rows (sum), unconverged envs (count, and the first STEP_STATS_LISTED of them with their iterations
 * and improvement), and envs newly found with a non-finite state (count, and the first STEP_STATS_LISTED). An
 * env's NaN is reported once: the kernel marks errSeen, which reset and clearErrors clear. A second entry point,
 * `nan_stages`, one invocation dispatched directly after it, names the stage that first shows each listed env's
 * NaN, as data/nan-stage.ts does on the CPU, in a loop over the NaN envs found (no turn in a healthy step). It
 * is apart because a SIMD software rasterizer (lavapipe) runs an `if` body for every lane, masked: the stage
 * search inside the per-env pass cost 20% of a Franka step there. It is not an indirect dispatch of one
 * workgroup per NaN env: Dawn checks an indirect dispatch's arguments with a pass of its own, and with the copy
 * of the arguments the counters' commands alone (Franka, 1024 envs, lavapipe) took 0.34 ms from submit to read
 * back and 0.106 ms of host time to encode, against 0.19 ms and 0.049 ms this way.
 */
import { STAGE_OUTPUTS } from '../../data/nan-stage.js';
import type { Capacities, PackedLayout } from '../layout.js';

/** Unconverged and NaN envs listed per step at most (each count is exact). */
export const STEP_STATS_LISTED = 64;

/** The record's u32 words: a header, then the unconverged list (env, iterations, improvement bits) and the NaN
 *  list (env, stage index into STAGE_OUTPUTS; past its end: no stage shows it). */
export const STAT = {
  iterationsMax: 0, iterationsSum: 1, contactsSum: 2, contactsMax: 3, constraintsSum: 4, notConverged: 5, nan: 6,
  header: 10,
} as const;
export const STAT_UNCONVERGED = STAT.header;
export const STAT_NAN = STAT_UNCONVERGED + 3 * STEP_STATS_LISTED;
export const STEP_STATS_WORDS = STAT_NAN + 2 * STEP_STATS_LISTED;

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The NaN-stage search over the fields the GPU keeps (a stage output it does not keep is not searched). */
function nanStageFn(layout: PackedLayout, cap: Capacities): string {
  const lines: string[] = [];
  STAGE_OUTPUTS.forEach(({ fields, rows }, s) => {
    for (const name of fields) {
      const spec = layout.spec.get(name);
      if (!spec || spec.size === 0 || spec.kind !== 'f32') continue;
      // Contact and constraint fields hold capacity rows; only the env's live ones count.
      const bound = rows === 'contacts' ? `${spec.size / cap.maxContacts} * ncon`
        : rows === 'constraints' ? `${spec.size / cap.maxEfc} * nefc` : `${spec.size} + z`;
      lines.push(`  for (var k = 0; k < ${bound}; k++) { if (!finite_f(dget(D_${snake(name)}, k, e))) { return ${s}u; } }`);
    }
  });
  return `fn nan_stage(e: u32) -> u32 {
  let ncon = iget(D_NCON, 0, e);
  let nefc = iget(D_NEFC, 0, e);
  // 0, but not a constant where the model's sizes are not (prelude.ts, bakeLoopBounds): lavapipe unrolls loops
  // of constant trip count whole, and these are only run for an env that has just gone NaN.
  let z = min(MAXCON, 0);
${lines.join('\n')}
  return ${STAGE_OUTPUTS.length}u;
}`;
}

/** The kernel's source after the shared prelude (its bindings are group 0; the record is group 1). */
export function stepStatsSource(preludeSrc: string, workgroupSize: number, layout: PackedLayout, cap: Capacities): string {
  return `${preludeSrc}
@group(1) @binding(0) var<storage, read_write> stats: array<atomic<u32>>;
fn finite_f(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
${nanStageFn(layout, cap)}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  load_layout();
  let e = gid.x;
  if (e >= N) { return; }
  let it = u32(iget(D_TIMER_ITERATIONS, 0, e));
  let con = u32(iget(D_TIMER_CONTACTS, 0, e));
  let efc = u32(iget(D_NEFC, 0, e));
  if (it > 0u) { atomicMax(&stats[${STAT.iterationsMax}], it); atomicAdd(&stats[${STAT.iterationsSum}], it); }
  if (con > 0u) { atomicAdd(&stats[${STAT.contactsSum}], con); atomicMax(&stats[${STAT.contactsMax}], con); }
  if (efc > 0u) { atomicAdd(&stats[${STAT.constraintsSum}], efc); }
  if (iget(D_TIMER_NOT_CONVERGED, 0, e) != 0) {
    let i = atomicAdd(&stats[${STAT.notConverged}], 1u);
    if (i < ${STEP_STATS_LISTED}u) {
      atomicStore(&stats[${STAT_UNCONVERGED}u + 3u * i], e);
      atomicStore(&stats[${STAT_UNCONVERGED}u + 3u * i + 1u], it);
      atomicStore(&stats[${STAT_UNCONVERGED}u + 3u * i + 2u], bitcast<u32>(dget(D_TIMER_IMPROVEMENT, 0, e)));
    }
  }
  if ((iget(D_ERR_FLAGS, 0, e) & 1) != 0 && iget(D_ERR_SEEN, 0, e) == 0) {
    iset(D_ERR_SEEN, 0, e, 1);
    let i = atomicAdd(&stats[${STAT.nan}], 1u);
    if (i < ${STEP_STATS_LISTED}u) { atomicStore(&stats[${STAT_NAN}u + 2u * i], e); }
  }
}

// One invocation, after the pass above: the stage of each NaN env it listed (none in a healthy step).
@compute @workgroup_size(1)
fn nan_stages() {
  load_layout();
  let listed = min(atomicLoad(&stats[${STAT.nan}]), ${STEP_STATS_LISTED}u);
  for (var i = 0u; i < listed; i++) {
    let e = atomicLoad(&stats[${STAT_NAN}u + 2u * i]);
    atomicStore(&stats[${STAT_NAN}u + 2u * i + 1u], nan_stage(e));
  }
}
`;
}
