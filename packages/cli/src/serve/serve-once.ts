/**
 * Perfetto's open_trace_in_ui convention: serve one local file on loopback with CORS for ui.perfetto.dev,
 * 404 for every other path, and stop once the file has been sent (or when aborted, e.g. on Ctrl-C).
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { CliError } from '../errors.js';

export const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';
export const LOOPBACK = '127.0.0.1';
export const DEFAULT_PORT = 9001;

export function traceUrl(file: string, port = DEFAULT_PORT): string {
  return `http://${LOOPBACK}:${port}/${encodeURIComponent(basename(file))}`;
}

export function perfettoDeepLink(file: string, port = DEFAULT_PORT): string {
  return `${PERFETTO_ORIGIN}/#!/?url=${traceUrl(file, port)}&referrer=open_trace_in_ui`;
}

export interface ServeOnceOptions {
  port?: number;
  /** Called once the socket listens, with the trace URL and the Perfetto deep link. */
  onListening?: (info: { url: string; deepLink: string; port: number }) => void;
  /** Aborting stops the server without the file having been served. */
  signal?: AbortSignal;
}

export interface ServeOnceResult {
  served: boolean;
  /** Requests answered 404. */
  rejected: number;
}

export async function serveTraceOnce(file: string, options: ServeOnceOptions = {}): Promise<ServeOnceResult> {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new CliError(file, 'not a regular file');
    size = st.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(file, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message);
  }
  const port = options.port ?? DEFAULT_PORT;
  const path = `/${encodeURIComponent(basename(file))}`;
  let rejected = 0;

  return await new Promise<ServeOnceResult>((resolve, reject) => {
    let finished = false;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
      res.setHeader('Access-Control-Allow-Origin', PERFETTO_ORIGIN);
      res.setHeader('Cache-Control', 'no-cache');
      if (url.pathname !== path) {
        rejected++;
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('not found\n');
        return;
      }
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Allow-Headers': '*' });
        res.end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        rejected++;
        res.writeHead(405, { Allow: 'GET, HEAD' });
        res.end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const stream = createReadStream(file);
      stream.on('error', (err) => { res.destroy(err); });
      res.on('finish', () => done(true));
      stream.pipe(res);
    });

    const done = (served: boolean): void => {
      if (finished) return;
      finished = true;
      options.signal?.removeEventListener('abort', onAbort);
      server.close(() => resolve({ served, rejected }));
      server.closeAllConnections();
    };
    const onAbort = (): void => done(false);

    server.on('error', (err: NodeJS.ErrnoException) => {
      if (finished) return;
      finished = true;
      const why = err.code === 'EADDRINUSE' ? `port ${port} is already in use (pass --port)` : err.message;
      reject(new CliError(`${LOOPBACK}:${port}`, why));
    });
    if (options.signal?.aborted) { finished = true; resolve({ served: false, rejected }); return; }
    options.signal?.addEventListener('abort', onAbort);
    server.listen(port, LOOPBACK, () => {
      const actual = (server.address() as { port: number }).port;
      options.onListening?.({ url: traceUrl(file, actual), deepLink: perfettoDeepLink(file, actual), port: actual });
    });
  });
}
