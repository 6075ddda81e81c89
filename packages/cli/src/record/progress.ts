/**
 * Progress for long recordings. On a TTY: a redrawn bar on stderr (steps, FPS, ETA) that stays below
 * anything else printed meanwhile (the FPS lines). Otherwise: a plain line every tenth of the run.
 */
import cliProgress from 'cli-progress';
import { thousands } from '../render/format.js';

export interface Progress {
  /** Called with the number of steps completed so far (never fewer than at the last call). */
  tick(done: number): void;
  stop(): void;
}

function eta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${seconds.toFixed(0)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

export function createProgress(options: { total: number; nEnvs: number; live: boolean; label?: string; out?: NodeJS.WritableStream }): Progress {
  const { total, nEnvs } = options;
  const label = options.label ?? 'recording';
  const started = performance.now();
  // The average since the start, not a recent window: on the GPU completions are seen in bursts (when the loop
  // yields), and a window between bursts can read any number. The run line then gives the rate after warm-up.
  const rate = (done: number): number => {
    const s = (performance.now() - started) / 1e3;
    return s > 0 ? (done * Math.max(1, nEnvs)) / s : 0;
  };
  if (!options.live) {
    const out = options.out ?? process.stderr;
    const every = Math.max(1, Math.ceil(total / 10));
    let printed = 0;
    return {
      tick(done) {
        // Completions can arrive in bursts (GPU): print when a tenth mark was passed, and the end once.
        if (done <= printed || (Math.floor(done / every) === Math.floor(printed / every) && done !== total)) return;
        printed = done;
        const s = (performance.now() - started) / 1e3;
        const left = done > 0 ? (s / done) * (total - done) : NaN;
        out.write(`${label}: step ${done}/${total} (${Math.round((100 * done) / total)}%), ${thousands(rate(done), 0)} env-steps/s, ETA ${eta(left)}\n`);
      },
      stop() { /* nothing to clear */ },
    };
  }
  const multi = new cliProgress.MultiBar({
    format: `${label} [{bar}] {value}/{total} steps | {fps} env-steps/s | ETA {eta_formatted}`,
    hideCursor: true,
    clearOnComplete: true,
    stopOnComplete: false,
    stream: process.stderr,
  }, cliProgress.Presets.shades_classic);
  const bar = multi.create(total, 0, { fps: '0' });
  // Anything written to stdout meanwhile (the FPS lines) is printed above the bar instead of through it.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    multi.log(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
  let stopped = false;
  return {
    tick(done) {
      bar.update(done, { fps: thousands(rate(done), 0) });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      multi.stop();
      process.stdout.write = write;
    },
  };
}
