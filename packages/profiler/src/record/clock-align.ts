/**
 * GPU -> host clock alignment from causality alone.
 *
 * GPU timestamps have their own epoch (and possibly rate). We model host = gpu + offset + drift * (gpu - gpuRef)
 * and learn it from two kinds of samples:
 *  - lower bounds: a pass cannot begin before the host started the submit that carries it,
 *    so host(gpuBegin) >= submitStartHost;
 *  - upper bounds: a pass has ended by the time the host sees its completion (onSubmittedWorkDone, or the
 *    readback of its timestamps), so host(gpuEnd) <= completionHost.
 * For a fixed drift, the offsets consistent with every sample form an interval [lo, hi]. Its width is a concave
 * function of the drift, so the drift is fitted by maximising the width (golden-section search), and the offset
 * is the interval's midpoint. The half-width is the error bound: the true offset at that drift is inside it.
 * Sync markers (an empty timestamped pass submitted to an idle queue and waited for) give samples whose bounds
 * are only a submit-plus-callback latency apart, which is what tightens the estimate.
 */

export interface ClockSample {
  /** Host time, ns, in the recorder's host clock. */
  hostNs: number;
  /** GPU timestamp, ns, relative to a per-device base (kept small so a double holds it exactly). */
  gpuNs: number;
}

export interface ClockAlignmentOptions {
  /** Largest drift considered, ppm. Real oscillators are within a few hundred. */
  maxDriftPpm?: number;
  /** Below this GPU time span (ns), drift is not identifiable and is fixed at 0. */
  minSpanForDriftNs?: number;
}

export interface ClockAlignment {
  /** host - gpu at gpuRefNs. */
  offsetNs: number;
  driftPpm: number;
  /** Half-width of the feasible offset interval at the fitted drift; -1 when one side has no sample. */
  errorBoundNs: number;
  samples: number;
  method: string;
  gpuRefNs: number;
  /** False when the samples contradict each other (the interval is empty); the estimate is then least-bad. */
  consistent: boolean;
  /** True when the drift fit ran into the search bound (+-maxDriftPpm): the samples do not pin a physical drift
   * (e.g. bounds that bind at opposite ends of the run as a queue backlog builds up). The fitted drift is then
   * not used when drift 0 fits the samples too; otherwise it is kept and the method says so. */
  driftAtBound: boolean;
}

export function gpuToHost(fit: ClockAlignment, gpuNs: number): number {
  return gpuNs + fit.offsetNs + (fit.driftPpm * 1e-6) * (gpuNs - fit.gpuRefNs);
}

export function estimateClockAlignment(
  lower: readonly ClockSample[],
  upper: readonly ClockSample[],
  options: ClockAlignmentOptions = {},
): ClockAlignment {
  const maxDrift = (options.maxDriftPpm ?? 500) * 1e-6;
  const minSpan = options.minSpanForDriftNs ?? 100e6;
  const samples = lower.length + upper.length;
  if (samples === 0) throw new Error('estimateClockAlignment: no samples');

  let gpuMin = Infinity;
  let gpuMax = -Infinity;
  for (const s of lower) { if (s.gpuNs < gpuMin) gpuMin = s.gpuNs; if (s.gpuNs > gpuMax) gpuMax = s.gpuNs; }
  for (const s of upper) { if (s.gpuNs < gpuMin) gpuMin = s.gpuNs; if (s.gpuNs > gpuMax) gpuMax = s.gpuNs; }
  const ref = gpuMin;

  // lo(d) = max over lower of (host - gpu - d*(gpu-ref)); hi(d) = min over upper of the same.
  const lo = (d: number): number => {
    let v = -Infinity;
    for (const s of lower) { const x = s.hostNs - s.gpuNs - d * (s.gpuNs - ref); if (x > v) v = x; }
    return v;
  };
  const hi = (d: number): number => {
    let v = Infinity;
    for (const s of upper) { const x = s.hostNs - s.gpuNs - d * (s.gpuNs - ref); if (x < v) v = x; }
    return v;
  };

  if (lower.length === 0 || upper.length === 0) {
    // One-sided: the best we can say is the bound itself.
    const offset = lower.length ? lo(0) : hi(0);
    return { offsetNs: offset, driftPpm: 0, errorBoundNs: -1, samples, method: lower.length ? 'lower-bound-only' : 'upper-bound-only', gpuRefNs: ref, consistent: true, driftAtBound: false };
  }

  let drift = 0;
  let method = 'causality-bounds';
  let driftAtBound = false;
  const canFitDrift = gpuMax - gpuMin >= minSpan && lower.length >= 2 && upper.length >= 2;
  if (canFitDrift) {
    const width = (d: number): number => hi(d) - lo(d);
    // Golden-section search for the maximum of a concave function on [-maxDrift, maxDrift].
    const g = (Math.sqrt(5) - 1) / 2;
    let a = -maxDrift;
    let b = maxDrift;
    let c = b - g * (b - a);
    let e = a + g * (b - a);
    let wc = width(c);
    let we = width(e);
    for (let i = 0; i < 80 && b - a > 1e-12; i++) {
      if (wc < we) { a = c; c = e; wc = we; e = a + g * (b - a); we = width(e); }
      else { b = e; e = c; we = wc; c = b - g * (b - a); wc = width(c); }
    }
    drift = (a + b) / 2;
    // A drift indistinguishable from zero (width no better) is reported as zero.
    if (width(0) >= width(drift) - 1e-9) drift = 0;
    method = 'causality-bounds+drift-fit';
    // A fit pinned at the edge of the search range is not a measurement of drift (no oscillator is that far
    // off); prefer no drift when the samples allow it.
    if (Math.abs(drift) >= maxDrift * (1 - 1e-6)) {
      driftAtBound = true;
      if (width(0) >= 0) { drift = 0; method = 'causality-bounds (drift fit hit the search bound; not used)'; }
      else method = 'causality-bounds+drift-fit (drift at the search bound)';
    }
  }
  const l = lo(drift);
  const h = hi(drift);
  const consistent = h >= l;
  return {
    offsetNs: (l + h) / 2,
    driftPpm: drift * 1e6,
    errorBoundNs: Math.abs(h - l) / 2,
    samples,
    method: consistent ? method : `${method} (inconsistent samples)`,
    gpuRefNs: ref,
    consistent,
    driftAtBound,
  };
}
