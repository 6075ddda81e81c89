import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perfettoDeepLink, serveTraceOnce } from '../src/serve/serve-once.js';

describe('serveTraceOnce', () => {
  it('serves the one file with Perfetto CORS, 404s the rest, then stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-serve-'));
    const file = join(dir, 'run 1.pftrace');
    writeFileSync(file, Buffer.from([10, 2, 8, 1]));
    let url = '';
    const done = serveTraceOnce(file, {
      port: 0,
      onListening: (info) => { url = info.url; },
    });
    while (!url) await new Promise((r) => setTimeout(r, 5));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run%201\.pftrace$/);
    const other = await fetch(url.replace('run%201.pftrace', 'etc/passwd'));
    expect(other.status).toBe(404);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.perfetto.dev');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([10, 2, 8, 1]));
    await expect(done).resolves.toEqual({ served: true, rejected: 1 });
  });

  it('stops unserved when aborted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsprof-serve-'));
    const file = join(dir, 't.json');
    writeFileSync(file, '{}');
    const controller = new AbortController();
    const done = serveTraceOnce(file, { port: 0, signal: controller.signal, onListening: () => controller.abort() });
    await expect(done).resolves.toEqual({ served: false, rejected: 0 });
  });

  it('names a missing file', async () => {
    await expect(serveTraceOnce('/nonexistent/x.pftrace', { port: 0 })).rejects.toThrow(/x\.pftrace: no such file/);
  });

  it('builds the open_trace_in_ui deep link', () => {
    expect(perfettoDeepLink('out/a.pftrace')).toBe('https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/a.pftrace&referrer=open_trace_in_ui');
  });
});
