/** Opens a URL in the user's browser when one can be found; silently does nothing otherwise. */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try { accessSync(candidate, constants.X_OK); return candidate; } catch { /* keep looking */ }
  }
  return null;
}

/** Returns the opener used, or null when none applies (no xdg-open/open, or no display on Linux). */
export function openBrowser(url: string): string | null {
  const opener = process.platform === 'darwin' ? onPath('open') : onPath('xdg-open');
  if (!opener) return null;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY && !process.env.BROWSER) return null;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => { /* no browser after all: the link is printed anyway */ });
    child.unref();
    return opener;
  } catch {
    return null;
  }
}
