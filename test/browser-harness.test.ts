/** The browser harness itself: it must see what the report tests assert is absent (console errors, requests). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, openPage, paintedPixels } from './support/browser.js';
import { tempDir } from './support/cli.js';

describe.skipIf(!hasChromium())('browser harness (Debian chromium, headless)', () => {
  let browser: Browser;
  beforeAll(async () => { browser = await launchChromium(); });
  afterAll(async () => { await browser?.close(); });

  it('records console errors, uncaught exceptions and every request a page makes, and reads a canvas', async () => {
    const dir = tempDir();
    const file = join(dir, 'page.html');
    writeFileSync(file, `<!doctype html><html><body><canvas id="a" width="40" height="20"></canvas><canvas id="b" width="40" height="20"></canvas>
<img src="missing.png"><script>
console.error('drawn badly');
document.getElementById('a').getContext('2d').fillRect(0, 0, 10, 10);
setTimeout(() => { throw new Error('late'); }, 0);
</script></body></html>`);
    const opened = await openPage(browser, file);
    try {
      await opened.page.waitForTimeout(50);
      expect(opened.errors.some((e) => e.includes('drawn badly'))).toBe(true);
      expect(opened.errors.some((e) => e.includes('uncaught: late'))).toBe(true);
      expect(opened.requests).toEqual([`file://${join(dir, 'missing.png')}`]);
      expect(await paintedPixels(opened.page, 'canvas')).toEqual([100, 0]);
    } finally {
      await opened.close();
    }
  });
});
