/** No command writes over one of its own inputs: an output that is an input file (by path, link or inode) is exit 2. */
import { realpathSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { CliError } from '../errors.js';

/** Whether `output` names the file `input` is (same path, a link to it, or a hard link): writing would destroy the input. */
export function isSameFile(input: string, output: string): boolean {
  try {
    const a = statSync(input);
    const b = statSync(output);
    return (a.dev === b.dev && a.ino === b.ino) || realpathSync(input) === realpathSync(output);
  } catch {
    return false;
  }
}

/** Throws when `output` is one of `inputs`, before anything is read or written. */
export function refuseOwnInput(command: string, output: string, inputs: readonly string[]): void {
  const input = inputs.find((i) => isSameFile(i, output));
  if (input === undefined) return;
  const also = input === output ? '' : ` (${input})`;
  throw new CliError(output, `is an input of ${command}${also}; ${command} never writes over its own input`);
}

/** Whether `file` lies inside the folder `dir` (after links are resolved): replacing `dir` would remove it. */
export function isInside(file: string, dir: string): boolean {
  const real = (p: string): string => { try { return realpathSync(p); } catch { return resolve(p); } };
  const rel = relative(real(dir), real(file));
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
}
