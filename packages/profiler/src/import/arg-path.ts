/**
 * Where a structured arg value sits in the args table. Importers flatten it as Perfetto does (`a.b[2].c`, one
 * row per leaf); these functions read such a key back as its path of object keys and array indices, and put
 * the leaves back together, so that an exporter writes the structure it was given.
 */
import type { ArgValue, Args } from '../model/trace.js';

export type ArgPath = ReadonlyArray<string | number>;

/** Whether an object key reads back as itself in a flattened key (a dot or a bracket would read as structure). */
export function plainArgKey(key: string): boolean {
  return !key.includes('.') && !key.includes('[');
}

/** The path a flattened key (its root, `args.` or `debug.`, removed) reads as: `a.b[2].c` -> a, b, 2, c. */
export function splitArgKey(key: string): Array<string | number> {
  const out: Array<string | number> = [];
  let start = 0;
  let afterIndex = false;
  for (let i = 0; i <= key.length; i++) {
    const c = key[i];
    const close = c === '[' ? key.indexOf(']', i) : -1;
    // A bracket that does not hold an index is part of a name.
    const index = close > i + 1 && /^\d+$/.test(key.slice(i + 1, close)) ? Number(key.slice(i + 1, close)) : null;
    if (i < key.length && c !== '.' && index === null) continue;
    if (!afterIndex) out.push(key.slice(start, i));
    afterIndex = index !== null;
    if (index !== null) { out.push(index); i = close; }
    start = i + 1;
  }
  return out;
}

/** The path of an arg key (its root, `args` or `debug`, removed). */
export function pathOfArgKey(key: string): Array<string | number> {
  const root = /^(args|debug)(\.|$)/.exec(key);
  if (!root) return splitArgKey(key);
  return root[2] ? splitArgKey(key.slice(root[0].length)) : [];
}

/** The path of the arg `${prefix}.${key}`, given the prefix's: null while every key on the way reads back as itself. */
export function childArgPath(prefix: string, path: ArgPath | null, key: string): ArgPath | null {
  if (path === null && plainArgKey(key)) return null;
  return [...(path ?? pathOfArgKey(prefix)), key];
}

/** Puts `value` at `path` in `args`, making the objects and arrays on the way. */
export function setArgPath(args: Args, path: ArgPath, value: ArgValue): void {
  // Arg keys come from the trace: none may reach an object's prototype.
  if (path.length === 0 || path.includes('__proto__')) return;
  let node: Record<string | number, ArgValue> = args;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    const wantArray = typeof path[i + 1] === 'number';
    let child = node[seg];
    if (child === null || typeof child !== 'object' || Array.isArray(child) !== wantArray) {
      child = wantArray ? [] : {};
      node[seg] = child;
    }
    node = child as Record<string | number, ArgValue>;
  }
  node[path[path.length - 1]!] = value;
}
