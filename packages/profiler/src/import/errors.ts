/** One-line error for unreadable trace input: names the file and where in it the problem is. */
export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError';
  constructor(
    readonly file: string,
    /** Human-readable position, e.g. "byte 1234" or "line 12". */
    readonly where: string,
    readonly reason: string,
  ) {
    super(`${file}: ${where}: ${oneLine(reason)}`);
  }
}

/** Anything that is not our own format error becomes one, so callers never see a raw parser stack. */
export function asTraceFormatError(err: unknown, file: string, where: string): TraceFormatError {
  if (err instanceof TraceFormatError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new TraceFormatError(file, where, msg.split('\n')[0] ?? 'unreadable input');
}

/** Messages stay on one line and short (parser messages may quote the offending source). */
function oneLine(s: string): string {
  const flat = s.replace(/\s*[\r\n]+\s*/g, ' ');
  return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}
