/** Starts one of the importer's worker threads from its compiled module, or from source under vitest or tsx. */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const fromSource = import.meta.url.endsWith('.ts');

/** `entry`: the worker module's name next to this file, without extension. */
export function spawnImportWorker(entry: string, workerData: unknown, name: string): Worker {
  const url = new URL(`./${entry}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return new Worker(url, { workerData, name });
  // Node 20 does not hook a worker's entry with the parent's loader: register tsx's in the worker first.
  const tsxApi = createRequire(import.meta.url).resolve('tsx/esm/api');
  const bootstrap = `require(${JSON.stringify(tsxApi)}).register();\nimport(${JSON.stringify(url.href)});`;
  return new Worker(bootstrap, { eval: true, workerData, name, execArgv: [] });
}
