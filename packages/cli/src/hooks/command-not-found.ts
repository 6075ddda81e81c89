/**
 * `gsprof recrod`: one line naming the closest command, exit 2 like every other usage error. oclif's
 * not-found plugin asks an interactive question on a terminal and says nothing of the suggestion elsewhere
 * (CI logs, pipes), so gsprof answers the same way everywhere instead.
 */
import type { Hook } from '@oclif/core';
import { errorLine } from '../errors.js';

/** Edit distance (insertions, deletions, substitutions; a swap of neighbours counts one). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest command id, or undefined when nothing is close (more than a third of the word differs). */
export function closestCommand(typed: string, ids: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const id of ids) {
    const distance = editDistance(typed, id);
    if (distance < bestDistance) [best, bestDistance] = [id, distance];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.ceil(typed.length / 3)) ? best : undefined;
}

const hook: Hook<'command_not_found'> = async (opts) => {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id);
  // With a space as topic separator the id also holds the arguments ('sumary:out'): the command is the first word.
  const typed = opts.id.split(':')[0]!;
  const suggestion = closestCommand(typed, ids);
  const hint = suggestion ? `did you mean '${suggestion}'?` : `run '${opts.config.bin} help' for the commands`;
  process.stderr.write(`${errorLine(typed, `not a ${opts.config.bin} command; ${hint}`)}\n`);
  process.exit(2);
};

export default hook;
