/**
 * The base every gsprof command extends: errors become one line (`gsprof: <what>: <why>`, exit 2, stack only
 * with DEBUG), `--json` errors are `{error: {message, exit}}`, and output knows whether colour is wanted.
 */
import { logger } from '@gsprof/log';
import { Command, Flags } from '@oclif/core';
import { CliError, describeError, errorLine } from './errors.js';
import { colorEnabled } from './render/color.js';
import { toJson } from './render/json.js';

export type { CliError };

/** `--strict` for the commands that read traces: any flaw in the file is an error instead of a warning. */
export const strictFlag = Flags.boolean({
  description: 'refuse a trace with any flaw (exit 2) instead of loading what can be read and warning with the counts',
});

/** `--no-cache` for the commands that read traces: import again instead of reusing the import cache. */
export const cacheFlag = Flags.boolean({
  description: 'reuse the imported tables of the trace from the import cache and keep them there (--no-cache: import again, keep nothing)',
  allowNo: true,
  default: true,
});

interface ExitLike {
  code?: string;
  oclif?: { exit?: number };
}

function isExit(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as ExitLike).code === 'EEXIT';
}

export abstract class GsprofCommand extends Command {
  /** Colour on stdout: a TTY, and neither NO_COLOR nor TERM=dumb. */
  protected get color(): boolean {
    return colorEnabled(process.stdout);
  }

  /** Prints text as is (tables and charts bring their own newlines); silent under --json. */
  protected print(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  protected override async init(): Promise<void> {
    await super.init();
    // Temporary folders that killed gsprof runs left (their owner pid is gone) are removed at every start.
    const { removeStaleTempDirs } = await import('@gsprof/dawn');
    removeStaleTempDirs();
    const flags = (this.constructor as { flags?: Record<string, unknown> }).flags;
    if (flags?.strict === strictFlag && this.argv.includes('--strict')) {
      const { importSettings } = await import('./views/open-trace.js');
      importSettings.strict = true;
    }
    if (flags?.cache === cacheFlag && this.argv.includes('--no-cache')) {
      const { importSettings } = await import('./views/open-trace.js');
      importSettings.cache = false;
    }
    // gsprof's packages log through @gsprof/log; warnings other libraries raise through Node's channel join it
    // instead of printing Node's "(node:1234) Warning: ..." banner. Logs go to stderr, so --json stays clean.
    process.removeAllListeners('warning');
    process.on('warning', (w: Error) => {
      if (w.name === 'ExperimentalWarning' || w.name === 'DeprecationWarning') return;
      logger.warning(w.message);
    });
  }

  /**
   * Ends a command whose result leaves traces out (a rank set's unreadable or doubled ranks): one line each on
   * stderr, then, after the result, exit 2. Under --json the result is still the one document on stdout.
   */
  protected finishSkipping(data: unknown, skipped: ReadonlyArray<{ path: string; reason: string }> | undefined, done: string): unknown {
    if (!skipped || skipped.length === 0) return data;
    for (const s of skipped) process.stderr.write(`${errorLine(s.path, `skipped: ${s.reason}`)}\n`);
    if (this.jsonEnabled()) {
      if (data !== undefined) this.logJson(data);
      return this.exit(2);
    }
    throw new CliError(this.id ?? 'gsprof', `${skipped.length} trace${skipped.length === 1 ? '' : 's'} skipped (see above); ${done}`);
  }

  protected override logJson(json: unknown): void {
    process.stdout.write(`${toJson(json)}\n`);
  }

  protected override toErrorJson(err: unknown): { error: { message: string; exit: number } } {
    const { what, why } = describeError(err, this.id ?? 'gsprof');
    const exit = err instanceof CliError ? err.exitCode : 2;
    return { error: { message: `${what}: ${why}`, exit } };
  }

  protected override async catch(err: Error & ExitLike): Promise<unknown> {
    if (isExit(err)) throw err;
    const { what, why } = describeError(err, this.id ?? 'gsprof');
    const exit = err instanceof CliError ? err.exitCode : 2;
    if (this.jsonEnabled()) {
      this.logJson(this.toErrorJson(err));
    } else {
      process.stderr.write(`${errorLine(what, why)}\n`);
    }
    if (process.env.DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return this.exit(exit);
  }
}
