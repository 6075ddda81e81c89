import type { SkippedTrace } from '@gsprof/profiler';

/** What every report view returns: the text a terminal shows and the data `--json` prints; `skipped`: traces of a
 * rank set left out (the command prints a line each and exits 2 after the report). */
export interface View { text: string; data: unknown; skipped?: SkippedTrace[] }
