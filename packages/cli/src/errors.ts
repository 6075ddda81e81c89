/**
 * How gsprof reports failure: one line, `gsprof: <what>: <why>`, exit 2. Library errors already name the file
 * and offset in their message; the CLI only adds what was being done when no more specific subject is known.
 */
import { stripVTControlCharacters } from 'node:util';

/** An error whose subject (a file, a flag, a command) is known where it is thrown. */
export class CliError extends Error {
  constructor(
    readonly what: string,
    readonly why: string,
    readonly exitCode = 2,
  ) {
    super(`${what}: ${why}`);
    this.name = 'CliError';
  }
}

/** Folds a possibly multi-line message (oclif parse errors have several) into one line. */
export function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !/^See more help with/i.test(line))
    .join(' ')
    .replace(/\s+/g, ' ');
}

/** Strips ANSI escapes: oclif colours some of its parse error messages. */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text);
}

/** The `<what>: <why>` part of the line for any thrown value. */
export function describeError(err: unknown, fallbackWhat: string): { what: string; why: string } {
  if (err instanceof CliError) return { what: err.what, why: oneLine(stripAnsi(err.why)) };
  const raw = err instanceof Error ? err.message : String(err);
  const why = oneLine(stripAnsi(raw)) || (err instanceof Error ? err.name : 'unknown error');
  return { what: fallbackWhat, why };
}

/** Formats the line printed on stderr. */
export function errorLine(what: string, why: string): string {
  return `gsprof: ${what}: ${why}`;
}
