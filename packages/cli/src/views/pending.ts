import { CliError } from '../errors.js';

/** Until the analysis library exports a function, the command names what is missing instead of crashing. */
export function missing(what: string, fn: string): never {
  throw new CliError(what, `this build of @gsprof/profiler has no ${fn}()`);
}
