/**
 * Headless Chromium for the real-browser tests: found through `RXKUBE_CHROMIUM` or on the PATH
 * (`chromium`, `chromium-browser`, `google-chrome`…), driven by puppeteer-core. A missing browser
 * fails the tests (so CI cannot pass without running them) unless `RXKUBE_SKIP_BROWSER_TESTS=1`.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** The environment variable that skips the browser tests (`1` or `true`). */
export const SKIP_ENV = 'RXKUBE_SKIP_BROWSER_TESTS';
/** The environment variable naming the Chromium executable. */
export const CHROMIUM_ENV = 'RXKUBE_CHROMIUM';

/** Where the tests put screenshots (gitignored). */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** Whether the environment asks to skip the browser tests. */
export function browserTestsSkipped(): boolean {
  const v = process.env[SKIP_ENV];
  return v === '1' || v === 'true';
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The Chromium executable; throws, saying how to get one, when there is none. */
export function findChromium(): string {
  const named = process.env[CHROMIUM_ENV];
  if (named !== undefined && named !== '') {
    if (!executable(named)) throw new Error(`${CHROMIUM_ENV}=${named} is not an executable file`);
    return named;
  }
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '')) {
    for (const name of NAMES) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  }
  throw new Error(
    `no Chromium found (looked for ${NAMES.join(', ')} on the PATH): install it (Debian: apt-get install -y chromium), ` +
      `or name it with ${CHROMIUM_ENV}=/path/to/chromium, or set ${SKIP_ENV}=1 to skip the browser tests`,
  );
}

/** Launches headless Chromium with the flags a container needs (root: no sandbox; small /dev/shm). */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
    protocolTimeout: 60_000,
  });
}

/** Saves a full-page screenshot under `test-artifacts/`; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** What went wrong in a page: console errors, uncaught exceptions, failed requests and HTTP errors (with their URL). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  page.on('requestfailed', (r) => {
    // A watch the page (or its closing) aborts is not a failure.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') errors.push(`request failed: ${r.method()} ${r.url()} (${r.failure()?.errorText ?? '?'})`);
  });
  return errors;
}
