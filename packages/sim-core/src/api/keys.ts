/**
 * Option-object key checks. gsprof spells Genesis' options in camelCase and rejects every other key, so a
 * Genesis habit (`n_envs`) or a typo fails loudly instead of being ignored: snake_case keys get
 * "did you mean 'nEnvs'?", other unknown keys the list of known ones.
 */

const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Throws on the first key of `options` not in `known`; `where` names the call (e.g. 'gs.init'); `hints` maps a
 * Genesis name whose camelCase differs from ours (dofs_idx_local) to our key.
 */
export function rejectUnknownKeys(
  options: object, known: readonly string[], where: string, hints: Readonly<Record<string, string>> = {},
): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const c = hints[key] ?? camel(key);
    if (c !== key && known.includes(c)) throw new Error(`${where}: unknown option '${key}'; did you mean '${c}'?`);
    throw new Error(`${where}: unknown option '${key}' (known: ${known.join(', ')})`);
  }
}
