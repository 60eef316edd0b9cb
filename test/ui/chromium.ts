/**
 * Debian's Chromium for the browser tests, driven by playwright-core (never a
 * browser Playwright downloads). Installed on first use, only when missing:
 * `apt-get install -y chromium`, after `apt-get update` if the package lists
 * do not know it yet. We run as root on the test machines.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a quiet, reproducible headless browser with no network of its own. */
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

/** Installs Debian's chromium package unless it is there already. Idempotent. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const install = (): void => {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
  };
  try {
    install();
  } catch {
    // The package lists may be missing or stale on a fresh machine.
    execFileSync('apt-get', ['update'], { stdio: 'inherit', timeout: 10 * 60_000 });
    install();
  }
  if (!existsSync(CHROMIUM))
    throw new Error(`apt-get installed chromium, but ${CHROMIUM} is missing`);
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile directory, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  ensureChromium();
  const profile = mkdtempSync(join(tmpdir(), 'weir-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1480, height: 1000 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
