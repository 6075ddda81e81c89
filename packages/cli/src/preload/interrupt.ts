/**
 * Ctrl-C for a program whose loop never yields: Node runs a signal handler only between tasks, so a
 * `for (...) scene.step()` loop on the CPU backend would run to its end. gsprof writes the signal's name to a
 * file when it is interrupted; the preload looks for that file at the program's steps (at most every 50 ms)
 * and, when it is there, throws ProgramInterrupted into the program, as Python's KeyboardInterrupt does: the
 * program's `finally` blocks run, and the preload's uncaught-exception handler writes the trace and exits
 * 128 + the signal number.
 */
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

const CHECK_EVERY_MS = 50;

export class ProgramInterrupted extends Error {
  override readonly name = 'ProgramInterrupted';
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }

  /** The exit code a shell reports for a process ended by this signal. */
  get exitCode(): number {
    return 128 + (constants.signals[this.signal] ?? 0);
  }
}

/**
 * Thrown by the preload's process.exit() once recording has started: the trace is written asynchronously, and
 * process.exit() must not return into the program (the statement after it would run, as it never does under
 * plain node). The uncaught-exception handler writes the trace and exits with `code`.
 */
export class ProgramExit extends Error {
  override readonly name = 'ProgramExit';
  constructor(readonly code: number | string | null | undefined) {
    super(`process.exit(${String(code ?? '')})`);
  }
}

export class InterruptWatch {
  private lastCheck = 0;

  constructor(private readonly file: string | undefined) {}

  /** Throws ProgramInterrupted once gsprof has been interrupted. */
  check(): void {
    if (!this.file) return;
    const now = performance.now();
    if (now - this.lastCheck < CHECK_EVERY_MS) return;
    this.lastCheck = now;
    if (!existsSync(this.file)) return;
    let signal = 'SIGINT';
    try { signal = readFileSync(this.file, 'utf8').trim() || signal; } catch { /* written as we read: SIGINT */ }
    throw new ProgramInterrupted(signal as NodeJS.Signals);
  }
}
