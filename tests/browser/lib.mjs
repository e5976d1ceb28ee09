// Shared by the browser tests and benches: launches Debian's chromium headless through
// playwright-core (never a downloaded browser), and small helpers for checks.
//
// The flags: Chromium on a machine without internet stalls on its background services
// (component updates, sync, QUIC probes), so they are off; a fresh profile per launch keeps
// runs independent of each other.
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
export const sourceDir = join(here, '..', '..');
const require = createRequire(join(sourceDir, 'viewer', 'package.json'));
const { chromium } = require('playwright-core');

export const chromiumPath = process.env.THICKET_CHROMIUM || '/usr/bin/chromium';

// Launches chromium with a fresh profile (playwright passes it as --user-data-dir); returns
// {browser, close()}: browser is the profile's context, close() also removes the profile.
export async function launch(viewport = { width: 1280, height: 800 }, extraArgs = []) {
  const profile = mkdtempSync(join(tmpdir(), 'thicket-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
    viewport,
    deviceScaleFactor: 1,
    timeout: 60000,
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// A new page of the browser at `url`, its errors collected (a test fails on any).
export async function openPage(browser, url) {
  const context = browser;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(`page error: ${e.message}`));
  page.on('console', m => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  // The page must never reach the network: a replay is self-contained.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost)/, route => {
    errors.push(`network request: ${route.request().url()}`);
    route.abort();
  });
  await page.goto(url);
  return { page, errors, context };
}

export function artifactsDir(buildDir) {
  const dir = join(buildDir, 'artifacts');
  mkdirSync(dir, { recursive: true });
  return dir;
}

let failures = 0;
export function check(ok, what) {
  if (ok) {
    console.log(`ok    ${what}`);
  } else {
    failures++;
    console.log(`FAIL  ${what}`);
  }
}
export function failed() { return failures; }

// The RGB of one CSS pixel of the page's #world canvas (device pixel ratio 1).
export async function canvasPixel(page, x, y) {
  return page.evaluate(([x, y]) => {
    const c = document.getElementById('world');
    const d = c.getContext('2d').getImageData(Math.round(x), Math.round(y), 1, 1).data;
    return [d[0], d[1], d[2]];
  }, [x, y]);
}

export const sameColor = (a, b, tolerance = 8) => a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

// Reads a record (JSONL text) into lines of objects.
export function parseRecord(text) {
  return text.split('\n').filter(l => l.trim()).map(l => JSON.parse(l));
}
