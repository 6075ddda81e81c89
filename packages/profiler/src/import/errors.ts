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

/** Messages stay on one line and short (parser messages may quote the offending source). */
function oneLine(s: string): string {
  const flat = s.replace(/\s*[\r\n]+\s*/g, ' ');
  return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}
