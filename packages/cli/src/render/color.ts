/** Colour and live progress follow the usual conventions: NO_COLOR (any value) and TERM=dumb turn them off,
 * FORCE_COLOR (not 0) turns colour on, and otherwise they need a TTY. */

export function colorEnabled(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/** Live (redrawn) progress needs stdout and stderr on a terminal (lines printed meanwhile are moved above the
 * bar, so stdout must be the same screen); colour does not matter for it. */
export function liveProgressEnabled(
  stderr: { isTTY?: boolean } = process.stderr, stdout: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.TERM === 'dumb' || env.CI === 'true') return false;
  return stderr.isTTY === true && stdout.isTTY === true;
}

/** Terminal width for charts: the TTY's columns, else COLUMNS, else 80. */
export function terminalWidth(stream: { columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  if (stream.columns && stream.columns > 20) return stream.columns;
  const fromEnv = Number(env.COLUMNS);
  if (Number.isFinite(fromEnv) && fromEnv > 20) return Math.floor(fromEnv);
  return 80;
}

const codes = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 } as const;
export type ColorName = keyof typeof codes;

export function paint(text: string, name: ColorName, on: boolean): string {
  return on ? `\u001b[${codes[name]}m${text}\u001b[${name === 'bold' ? 22 : 39}m` : text;
}
