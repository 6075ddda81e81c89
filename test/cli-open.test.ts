/** gsprof open: Perfetto's open_trace_in_ui convention over real loopback HTTP. */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
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

describe('gsprof open: hostile requests and faults (issue 15)', () => {
  beforeAll(() => { ensureBuilt(); });

  /** Starts `gsprof open`, under `wrapper` (a command that runs the rest of its arguments) when given. */
  function startOpen(file: string, port: number, wrapper: string[] = []) {
    const argv = [process.execPath, BIN, 'open', file, '--port', String(port), '--no-browser'];
    const [cmd, ...args] = [...wrapper, ...argv];
    const child = spawn(cmd!, args, { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (d: Buffer) => { out.stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out.stderr += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const listening = (async () => {
      const started = Date.now();
      while (!out.stdout.includes('Open in Perfetto') && Date.now() - started < 20_000) {
        if (child.exitCode !== null) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    return { child, out, exited, listening };
  }

  function get(port: number, path: string, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers only loopback Host names: a rebinding name gets 403 and the file stays unserved', async () => {
    const file = join(tempDir(), 'run.pftrace');
    writeFileSync(file, Buffer.from([0x0a, 0x00]));
    const port = await freePort();
    const s = startOpen(file, port);
    await s.listening;
    expect(await get(port, '/run.pftrace', `attacker.example:${port}`)).toBe(403);
    expect(await get(port, '/run.pftrace', '127.0.0.1')).toBe(403);
    expect(await get(port, '/run.pftrace', `localhost:${port + 1}`)).toBe(403);
    expect(s.child.exitCode).toBe(null);
    expect(await get(port, '/run.pftrace', `localhost:${port}`)).toBe(200);
    expect(await s.exited).toBe(0);
  });

  // Root reads any file, so as root the CLI runs under setpriv with every capability dropped: still root, so it
  // reaches the checkout wherever it is (a 0700 folder too), but a mode-000 file is unreadable to it. (Running it
  // as nobody failed in a clone under a root-only folder: nobody could not reach the CLI itself.)
  const asRoot = process.getuid?.() === 0;
  const NO_CAPS = ['setpriv', '--inh-caps=-all', '--bounding-set=-all', '--'];
  const canDropCaps = !asRoot || spawnSync(NO_CAPS[0]!, ['--version']).status === 0;
  if (!canDropCaps && process.env.CI !== 'true') console.warn('skipping the unreadable-file test: running as root without setpriv (util-linux), which it needs to drop root\'s capabilities');

  it.skipIf(!canDropCaps && process.env.CI !== 'true')('an unreadable file is reported before anything is served (exit 2, one line), not served empty', async () => {
    const file = join(tempDir(), 'secret.pftrace');
    writeFileSync(file, 'x');
    chmodSync(file, 0o000);
    const s = startOpen(file, await freePort(), asRoot ? NO_CAPS : []);
    expect(await s.exited).toBe(2);
    expect(s.out.stdout).not.toContain('Serving');
    expect(s.out.stderr.trim()).toMatch(/^gsprof: \S*secret\.pftrace: cannot read: EACCES[^\n]*$/);
  });

  it('serves only what loads as a trace: a JSON file that is not one is refused before serving (issue 33)', async () => {
    const file = join(tempDir(), 'package.json');
    writeFileSync(file, '{"name":"x","version":"1"}');
    const s = startOpen(file, await freePort());
    expect(await s.exited).toBe(2);
    expect(s.out.stdout).not.toContain('Serving');
    expect(s.out.stderr.trim()).toMatch(/^gsprof: open: \S*package\.json: top level: read as JSON: .*not a Chrome\/Kineto trace$/);
  });

  it('Ctrl-C before the trace is fetched exits 130, as the docs say', async () => {
    const file = join(tempDir(), 'run.pftrace');
    writeFileSync(file, Buffer.from([0x0a, 0x00]));
    const s = startOpen(file, await freePort());
    await s.listening;
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(130);
    expect(s.out.stdout).toContain('Stopped before the trace was fetched.');
  });
});
