import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium: the browser the tests drive (playwright-core never downloads one). `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenedPage {
  readonly page: Page;
  /** Every request the page made, the document's own navigation included. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Opens a local file in headless chromium with a fresh profile. Every
 * request is recorded, and any request but the document itself is aborted,
 * so a page that tries to reach out is caught and cannot.
 */
export async function openFile(file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
  const profile = mkdtempSync(join(tmpdir(), 'vouch-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, viewport });
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  // Anything that is not the document is stopped before it leaves (file:// navigations are not routed).
  await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, close: () => context.close() };
}
