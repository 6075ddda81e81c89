/** gsprof open: Perfetto's open_trace_in_ui convention over real loopback HTTP. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, ensureBuilt, tempDir } from './support/cli.js';

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('gsprof open', () => {
  beforeAll(() => { ensureBuilt(); });

  it('serves exactly the file once, with CORS for ui.perfetto.dev, 404 elsewhere, then exits', async () => {
    const dir = tempDir();
    const file = join(dir, 'run.pftrace');
    const bytes = Buffer.from([0x0a, 0x03, 0x08, 0x96, 0x01]);
    writeFileSync(file, bytes);
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'open', file, '--port', String(port), '--no-browser'], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const started = Date.now();
    while (!stdout.includes('Open in Perfetto') && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    expect(stdout).toContain(`https://ui.perfetto.dev/#!/?url=http://127.0.0.1:${port}/run.pftrace&referrer=open_trace_in_ui`);

    const other = await fetch(`http://127.0.0.1:${port}/etc/passwd`);
    expect(other.status).toBe(404);
    const res = await fetch(`http://127.0.0.1:${port}/run.pftrace`, { headers: { Origin: 'https://ui.perfetto.dev' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.perfetto.dev');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    expect(await exited).toBe(0);
    expect(stdout).toContain('Trace served; exiting.');
  });
});
