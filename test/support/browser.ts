/**
 * Opens gsprof's HTML pages in Debian's `chromium` (installed by scripts/install-chromium.sh, driven headless by
 * playwright-core, which downloads no browser). Each page is opened from file:// with every console error,
 * uncaught exception and network request recorded, so a test can assert that the page is self-contained.
 * Without chromium the browser tests skip with a printed reason, except under CI=true, where its absence fails.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

/** Debian's wrapper script, unless GSPROF_CHROMIUM names another build of Chromium. */
export const CHROMIUM = process.env.GSPROF_CHROMIUM ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true but chromium is missing at ${CHROMIUM} (scripts/install-chromium.sh installs it)`);
  console.warn(`skipping the browser tests: no chromium at ${CHROMIUM} (run scripts/install-chromium.sh, or set GSPROF_CHROMIUM)`);
  return false;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

export interface OpenedPage {
  page: Page;
  /** Console messages of type error and uncaught exceptions, as text. */
  errors: string[];
  /** Every request the page made after its own file:// document (scripts, styles, images, fetches). */
  requests: string[];
  /** Milliseconds from navigation to the load event. */
  loadMs: number;
  close(): Promise<void>;
}

/** Opens `file` in a fresh page of `browser` (a small viewport so screenshots stay small) and waits for load. */
export async function openPage(browser: Browser, file: string, viewport = { width: 1100, height: 800 }): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const requests: string[] = [];
  const url = pathToFileURL(file).href;
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => { errors.push(`uncaught: ${e.message}`); });
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  const started = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  const loadMs = Date.now() - started;
  return { page, errors, requests, loadMs, close: () => page.close() };
}

/** How many pixels of a canvas are not fully transparent (0: the chart drew nothing). */
export async function paintedPixels(page: Page, selector: string): Promise<number[]> {
  return await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
    return n;
  })`);
}
