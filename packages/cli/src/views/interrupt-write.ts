/**
 * Ctrl-C (or SIGTERM, SIGHUP) while a command writes its output: the output is written under a temporary
 * name and renamed only when complete (FileSink), so the target is untouched; this removes the temporary file
 * too, then exits 128 + the signal's number as a shell reports it. convert and merge write this way.
 */
import { constants } from 'node:os';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function removingPartialsOnSignal<T>(write: () => Promise<T>): Promise<T> {
  const { removeOpenPartials } = await import('@gsprof/profiler');
  const onSignal = (signal: NodeJS.Signals): void => {
    removeOpenPartials();
    process.exit(128 + (constants.signals[signal] ?? 2));
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  try {
    return await write();
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}
