#!/usr/bin/env node
// oclif's execute(), except that errors raised outside a command (an unknown command name) also become the
// one-line `gsprof: <what>: <why>` with exit 2 instead of oclif's banner. `query` runs supervised, in a child
// process, so that a query its watchdog stops exits 2 too (views/query-supervisor.ts).
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

if (process.argv[2] === 'query' && !('GSPROF_QUERY_SUPERVISED' in process.env)) {
  const { superviseQuery } = await import('../dist/views/query-supervisor.js');
  await superviseQuery(fileURLToPath(import.meta.url), process.argv.slice(2));
} else {
  const { flush, handle, run } = await import('@oclif/core');
  try {
    await run(process.argv.slice(2), import.meta.url);
    await flush();
  } catch (err) {
    if (err && (err.code === 'EEXIT' || err.oclif?.exit !== undefined && !/not found/.test(String(err.message)))) {
      await handle(err);
    } else {
      const message = stripVTControlCharacters(String(err?.message ?? err));
      const unknown = /command (\S+) not found/.exec(message);
      const line = unknown ? `${unknown[1]}: unknown command (see gsprof --help)` : message.split('\n')[0];
      process.stderr.write(`gsprof: ${line}\n`);
      if (process.env.DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`);
      process.exitCode = 2;
    }
  }
}
