#!/usr/bin/env node
// Keeps docs/cli.md's usage blocks equal to what `gsprof <command> --help` prints at 80 columns.
//   node scripts/cli-docs.mjs          rewrite the blocks
//   node scripts/cli-docs.mjs --check  exit 1 naming the commands whose block is stale
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = `${root}docs/cli.md`;
const bin = `${root}packages/cli/bin/run.js`;
const check = process.argv.includes('--check');

const heading = /^### gsprof (\w+)\n\n```text\n/gm;
let text = readFileSync(doc, 'utf8');
const stale = [];
// One block at a time, searching on from the end of the last one written (the text changes as blocks are).
for (let m = heading.exec(text); m !== null; m = heading.exec(text)) {
  const command = m[1];
  const start = m.index + m[0].length;
  const end = text.indexOf('```', start);
  const help = execFileSync(process.execPath, [bin, command, '--help'], { env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' }, encoding: 'utf8' });
  const block = `${help.trimEnd()}\n`;
  if (text.slice(start, end) !== block) stale.push(command);
  text = text.slice(0, start) + block + text.slice(end);
  heading.lastIndex = start + block.length;
}
if (check) {
  if (stale.length > 0) {
    console.error(`docs/cli.md: the usage of ${stale.join(', ')} differs from --help; run node scripts/cli-docs.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(doc, text);
  console.log(stale.length > 0 ? `docs/cli.md: rewrote ${stale.join(', ')}` : 'docs/cli.md: up to date');
}
