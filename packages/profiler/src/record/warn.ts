/** Profiler warnings go through Node's warning channel (like Python's `warnings.warn` in torch), so callers can
 * filter them with `process.on('warning')` or `--no-warnings`. */
export const WARNING_TYPE = 'ProfilerWarning';

export function warn(message: string): void {
  process.emitWarning(message, { type: WARNING_TYPE });
}
