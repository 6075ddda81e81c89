/**
 * How `record -- <command>` ends: the program's own exit code passes through (a CI step sees the program's
 * failure, not gsprof's), a program killed by a signal gives one line naming it and 128 + the signal number, as a
 * shell reports it. Whatever was recorded before is written either way. Only a program that ran to success and
 * recorded nothing is gsprof's error (exit 2).
 */
import { constants } from 'node:os';

export interface ChildResult {
  exitCode: number | null;
  signal: string | null;
  traces: string[];
}

export function childOutcome(command: string, r: ChildResult): { exitCode: number; line: string | null } {
  if (r.signal !== null) {
    const number = constants.signals[r.signal as NodeJS.Signals] ?? 0;
    const kept = r.traces.length ? `; the ${r.traces.length} trace file(s) above hold what it recorded` : '; it recorded no trace';
    return { exitCode: 128 + number, line: `gsprof: record: ${command} was killed by ${r.signal}${kept}` };
  }
  const code = r.exitCode ?? 1;
  if (code !== 0) {
    const kept = r.traces.length ? `; the ${r.traces.length} trace file(s) above hold what it recorded` : '; it recorded no trace';
    return { exitCode: code, line: `gsprof: record: ${command} exited with code ${code}${kept}` };
  }
  return r.traces.length ? { exitCode: 0, line: null } : { exitCode: 2, line: null };
}
