/**
 * Genesis' FPSTracker (genesis/utils/tools.py), ticked after every scene.step() on the host clock (no device
 * sync). The first tick only starts the clock. Steps then accumulate into windows of at least 50 ms. The
 * smoothed quantity is the window's duration, not a rate: dtEma = alpha*dtEma + (1-alpha)*window_s, reset to the
 * window's own duration when that is more than 1.5x longer or shorter than dtEma. The line's per-env rate is
 * window_steps / dtEma, so a change of speed shows in the next window instead of creeping in over seconds.
 */
import { logger } from './logger.js';

export const FPS_MIN_WINDOW_S = 0.05;

/** Seconds, monotonic. Injected by tests. */
export type Clock = () => number;

export const hostClock: Clock = () => performance.now() / 1000;

/**
 * Python's `f"{x:.2f}"` / `f"{x:,.2f}"` for x >= 0. JavaScript's toFixed rounds exact ties up; Python rounds
 * the exact binary value half-to-even. A tie at 2 decimals is only possible when 8x is an odd integer.
 */
export function pyFixed2(x: number, grouping = false): string {
  let text: string;
  const eight = x * 8;
  if (Number.isInteger(eight) && eight % 2 === 1 && Math.abs(x) < 2 ** 40) {
    const lower = Math.floor(x * 100); // exact: x*100 = 12.5 * odd
    const n = lower % 2 === 0 ? lower : lower + 1;
    text = (n / 100).toFixed(2);
  } else {
    text = x.toFixed(2);
  }
  if (!grouping) return text;
  const [int, frac] = text.split('.') as [string, string];
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
}

const fixed2 = (x: number): string => pyFixed2(x);

/** The exact line Genesis prints for a smoothed per-env rate. */
export function fpsLine(fpsPerEnv: number, nEnvs: number): string {
  if (nEnvs > 0) {
    return `Running at ${pyFixed2(fpsPerEnv * nEnvs, true)} FPS (${fixed2(fpsPerEnv)} FPS per env, ${nEnvs} envs).`;
  }
  return `Running at ${fixed2(fpsPerEnv)} FPS.`;
}

/** A window this many times longer or shorter than the smoothed one replaces it (Genesis' outlier_threshold). */
export const FPS_OUTLIER_FACTOR = 1.5;

export class FPSTracker {
  private windowStart: number | null = null;
  private steps = 0;
  /** Smoothed window duration, seconds; null before the first window closes. */
  private dtEma: number | null = null;
  /** Steps per second of one env at the last line; null before the first window closes. */
  fps: number | null = null;
  totalFps = 0;

  constructor(
    readonly nEnvs: number,
    readonly alpha = 0.95,
    private readonly clock: Clock = hostClock,
    private readonly print: (line: string) => void = (line) => logger.info(line),
  ) {}

  /** Counts one step; returns the total rate when a window closed (and a line was printed), else null. */
  step(now: number = this.clock()): number | null {
    if (this.windowStart === null) {
      this.windowStart = now;
      return null;
    }
    this.steps += 1;
    const windowS = now - this.windowStart;
    if (windowS < FPS_MIN_WINDOW_S) return null;
    const previous = this.dtEma;
    const outlier = previous !== null && (windowS > previous * FPS_OUTLIER_FACTOR || windowS * FPS_OUTLIER_FACTOR < previous);
    this.dtEma = previous === null || outlier ? windowS : this.alpha * previous + (1 - this.alpha) * windowS;
    this.fps = this.steps / this.dtEma;
    this.totalFps = this.nEnvs > 0 ? this.fps * this.nEnvs : this.fps;
    this.print(fpsLine(this.fps, this.nEnvs));
    this.windowStart = now;
    this.steps = 0;
    return this.totalFps;
  }
}
