/**
 * Perfetto's open_trace_in_ui convention: serve one local file on loopback with CORS for ui.perfetto.dev,
 * 404 for every other path, and stop once the file has been sent (or when aborted, e.g. on Ctrl-C).
 */
import { closeSync, constants, createReadStream, fstatSync, openSync } from 'node:fs';
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

/**
 * Host headers the server answers: loopback names with the port. Any other name means the request came through
 * a name that resolves to loopback (DNS rebinding), so a web page could read the trace; it gets 403.
 */
export function allowedHosts(port: number): Set<string> {
  return new Set([`${LOOPBACK}:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export async function serveTraceOnce(file: string, options: ServeOnceOptions = {}): Promise<ServeOnceResult> {
  // The file is opened before anything listens, so an unreadable one is reported instead of announced and then
  // served as an empty reply.
  let fd: number;
  let size: number;
  try {
    // O_NONBLOCK: a FIFO given as the trace must not block the open; it is refused just below.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(file, code === 'ENOENT' ? 'no such file' : `cannot read: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CliError(file, 'not a regular file');
    size = st.size;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  const port = options.port ?? DEFAULT_PORT;
  const path = `/${encodeURIComponent(basename(file))}`;
  let rejected = 0;
  let hosts = allowedHosts(port);

  return await new Promise<ServeOnceResult>((resolve, reject) => {
    let finished = false;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
      res.setHeader('Access-Control-Allow-Origin', PERFETTO_ORIGIN);
      res.setHeader('Cache-Control', 'no-cache');
      if (!hosts.has((req.headers.host ?? '').toLowerCase())) {
        rejected++;
        res.writeHead(403, { 'Content-Type': 'text/plain' });
        res.end('forbidden: Host must be a loopback name\n');
        return;
      }
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
      // Served once: the descriptor opened above is read from the start and closed with the stream.
      const stream = createReadStream('', { fd, start: 0, autoClose: true });
      stream.on('error', (err) => {
        res.destroy(err);
        done(false, new CliError(file, `cannot read: ${err.message}`));
      });
      res.on('finish', () => done(true));
      stream.pipe(res);
    });

    const done = (served: boolean, failure?: Error): void => {
      if (finished) return;
      finished = true;
      options.signal?.removeEventListener('abort', onAbort);
      if (!served) { try { closeSync(fd); } catch { /* already closed by the stream */ } }
      server.close(() => (failure ? reject(failure) : resolve({ served, rejected })));
      server.closeAllConnections();
    };
    const onAbort = (): void => done(false);

    server.on('error', (err: NodeJS.ErrnoException) => {
      if (finished) return;
      finished = true;
      closeSync(fd);
      const why = err.code === 'EADDRINUSE' ? `port ${port} is already in use (pass --port)` : err.message;
      reject(new CliError(`${LOOPBACK}:${port}`, why));
    });
    if (options.signal?.aborted) { finished = true; closeSync(fd); resolve({ served: false, rejected }); return; }
    options.signal?.addEventListener('abort', onAbort);
    server.listen(port, LOOPBACK, () => {
      const actual = (server.address() as { port: number }).port;
      hosts = allowedHosts(actual);
      options.onListening?.({ url: traceUrl(file, actual), deepLink: perfettoDeepLink(file, actual), port: actual });
    });
  });
}
