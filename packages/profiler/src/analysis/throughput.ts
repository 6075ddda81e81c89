/**
 * The one throughput gsprof prints: completed steps over the wall period from the first step's start to the last
 * one's completion (on the GPU, when its last kernel ended; on the CPU, when its host span ended). `record`'s run
 * line measures that period on the host clock as it steps; `summary` reads it from the trace. Both divide here,
 * so the same steps give the same number, and the period each measured is printed beside it.
 */
export interface Throughput {
  steps: number;
  /** ns from the first step's start to the last one's completion. */
  periodNs: number;
  /** 0 when there is no step or no period (never Infinity or NaN). */
  stepsPerSecond: number;
  /** stepsPerSecond * nEnvs; null when the number of environments is unknown. */
  envStepsPerSecond: number | null;
}

export function completedThroughput(steps: number, periodNs: number, nEnvs: number | null): Throughput {
  const stepsPerSecond = steps > 0 && periodNs > 0 ? steps / (periodNs / 1e9) : 0;
  return { steps, periodNs, stepsPerSecond, envStepsPerSecond: nEnvs === null ? null : stepsPerSecond * nEnvs };
}
