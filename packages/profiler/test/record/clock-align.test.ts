import { describe, expect, it } from 'vitest';
import { estimateClockAlignment, gpuToHost, type ClockSample } from '../../src/record/index.js';
import { mulberry32 as rng } from '../../../../test/support/random.js';

const exp = (r: () => number, mean: number): number => -Math.log(1 - r()) * mean;

/** Synthetic run: host = gpu*(1+drift) + a0; submits precede each pass begin, completions follow each end. */
function synth(opts: { a0: number; driftPpm: number; submits: number; spanNs: number; lowerLatNs: number; upperLatNs: number; seed: number }) {
  const r = rng(opts.seed);
  const d = opts.driftPpm * 1e-6;
  const truth = (g: number): number => g * (1 + d) + opts.a0;
  const lower: ClockSample[] = [];
  const upper: ClockSample[] = [];
  for (let i = 0; i < opts.submits; i++) {
    const begin = 5e6 + (i / opts.submits) * opts.spanNs + r() * 1e5;
    const end = begin + 2e5 + r() * 1e6;
    lower.push({ gpuNs: begin, hostNs: truth(begin) - 2e3 - exp(r, opts.lowerLatNs) });
    upper.push({ gpuNs: end, hostNs: truth(end) + 5e3 + exp(r, opts.upperLatNs) });
  }
  return { lower, upper, truth };
}

describe('estimateClockAlignment', () => {
  it.each([
    [-3.2e11, 40, 1],
    [1.5e9, -120, 2],
    [0, 0, 3],
    [7.77e10, 300, 4],
  ])('recovers offset %d ns and drift %d ppm within its error bound', (a0, driftPpm, seed) => {
    const { lower, upper, truth } = synth({ a0, driftPpm, submits: 400, spanNs: 10e9, lowerLatNs: 40e3, upperLatNs: 80e3, seed });
    const fit = estimateClockAlignment(lower, upper);
    expect(fit.consistent).toBe(true);
    expect(fit.method).toBe('causality-bounds+drift-fit');
    expect(Math.abs(fit.driftPpm - driftPpm)).toBeLessThan(0.5);
    // True offset at the reference GPU time lies inside the reported interval.
    expect(Math.abs(fit.offsetNs - (truth(fit.gpuRefNs) - fit.gpuRefNs))).toBeLessThanOrEqual(fit.errorBoundNs);
    // The bound is about the latency floor (2 + 5 us) plus the smallest sampled latencies, not the mean.
    expect(fit.errorBoundNs).toBeLessThan(20e3);
    // Every GPU time in the run maps within the bound (plus what the sub-ppm drift error adds over 10 s).
    for (const g of [5e6, 2e9, 5e9, 10e9]) {
      expect(Math.abs(gpuToHost(fit, g) - truth(g))).toBeLessThanOrEqual(fit.errorBoundNs + 0.5e-6 * 10e9);
    }
    expect(fit.samples).toBe(800);
  });

  it('a fit pinned at the search bound is flagged, never reported as a measured 500 ppm', () => {
    // A true drift of 2000 ppm is outside the +-500 ppm search range: the fit runs into the bound.
    const { lower, upper } = synth({ a0: 0, driftPpm: 2000, submits: 400, spanNs: 3e9, lowerLatNs: 40e3, upperLatNs: 80e3, seed: 8 });
    const fit = estimateClockAlignment(lower, upper);
    expect(fit.driftAtBound).toBe(true);
    expect(fit.method).toMatch(/search bound/);
    // The fitted drift is not usable here (drift 0 contradicts the samples), so it is kept but labelled.
    expect(fit.driftPpm).toBeCloseTo(500, 3);
    const within = estimateClockAlignment(...(() => { const r = synth({ a0: 0, driftPpm: 100, submits: 400, spanNs: 3e9, lowerLatNs: 40e3, upperLatNs: 80e3, seed: 8 }); return [r.lower, r.upper] as const; })());
    expect(within.driftAtBound).toBe(false);
  });

  it('fixes drift at 0 when the run is too short to identify it', () => {
    const { lower, upper, truth } = synth({ a0: 1e6, driftPpm: 50, submits: 20, spanNs: 20e6, lowerLatNs: 10e3, upperLatNs: 10e3, seed: 5 });
    const fit = estimateClockAlignment(lower, upper);
    expect(fit.method).toBe('causality-bounds');
    expect(fit.driftPpm).toBe(0);
    expect(Math.abs(fit.offsetNs - (truth(fit.gpuRefNs) - fit.gpuRefNs))).toBeLessThanOrEqual(fit.errorBoundNs + 50e-6 * 20e6);
  });

  it('tight sync-marker samples shrink the bound', () => {
    const { lower, upper, truth } = synth({ a0: 4e9, driftPpm: 0, submits: 50, spanNs: 50e6, lowerLatNs: 200e3, upperLatNs: 500e3, seed: 6 });
    const loose = estimateClockAlignment(lower, upper);
    // A marker: an empty pass on an idle queue, submitted 1 us before it begins, seen done 1.5 us after it ends.
    const g = 30e6;
    const tight = estimateClockAlignment([...lower, { gpuNs: g, hostNs: truth(g) - 1e3 }], [...upper, { gpuNs: g + 100, hostNs: truth(g + 100) + 1.5e3 }]);
    expect(tight.errorBoundNs).toBeLessThan(loose.errorBoundNs);
    expect(tight.errorBoundNs).toBeLessThanOrEqual(1.25e3 + 1);
    expect(Math.abs(tight.offsetNs - (truth(tight.gpuRefNs) - tight.gpuRefNs))).toBeLessThanOrEqual(tight.errorBoundNs);
  });

  it('reports contradictory samples instead of inventing a bound', () => {
    const fit = estimateClockAlignment([{ gpuNs: 0, hostNs: 1000 }], [{ gpuNs: 10, hostNs: 500 }]);
    expect(fit.consistent).toBe(false);
    expect(fit.method).toMatch(/inconsistent/);
    expect(fit.errorBoundNs).toBe(255);
  });

  it('one-sided samples give the bound itself and an unknown (-1) error', () => {
    const fit = estimateClockAlignment([{ gpuNs: 100, hostNs: 1000 }, { gpuNs: 200, hostNs: 1050 }], []);
    expect(fit).toMatchObject({ offsetNs: 900, errorBoundNs: -1, method: 'lower-bound-only' });
    expect(() => estimateClockAlignment([], [])).toThrow(/no samples/);
  });
});
