/**
 * Genesis' FPSTracker: ticked after every scene.step() on the host clock (no device sync). The first tick only
 * starts the clock; steps then accumulate into windows of at least 50 ms; each window gives
 * window_fps = steps / window_s, smoothed fps = alpha*fps + (1-alpha)*window_fps (the first window initialises),
 * and one log line. Per-env rate is the smoothed one; the total is it times nEnvs.
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

export class FPSTracker {
  private windowStart: number | null = null;
  private steps = 0;
  /** Smoothed steps per second of one env; null before the first window closes. */
  fps: number | null = null;
  totalFps = 0;

  constructor(
    readonly nEnvs: number,
    readonly alpha = 0.95,
    private readonly clock: Clock = hostClock,
    private readonly print: (line: string) => void = (line) => logger.info(line),
  ) {}

  /** Counts one step; returns the smoothed total rate when a window closed (and a line was printed), else null. */
  step(now: number = this.clock()): number | null {
    if (this.windowStart === null) {
      this.windowStart = now;
      return null;
    }
    this.steps += 1;
    const windowS = now - this.windowStart;
    if (windowS < FPS_MIN_WINDOW_S) return null;
    const windowFps = this.steps / windowS;
    this.fps = this.fps === null ? windowFps : this.alpha * this.fps + (1 - this.alpha) * windowFps;
    this.totalFps = this.nEnvs > 0 ? this.fps * this.nEnvs : this.fps;
    this.print(fpsLine(this.fps, this.nEnvs));
    this.windowStart = now;
    this.steps = 0;
    return this.totalFps;
  }
}
