/**
 * The web UI in a real browser: `weir demo --ui` serves it, headless
 * Chromium (Debian's, driven by playwright-core) opens it, and the test
 * checks that the job graph and the live numbers render and update, and that
 * its Cancel button (with the token pasted) ends the job. Leaves a
 * screenshot in docs/ui-screenshot.png.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDetails, JobMetrics } from '../../src/ui/job-view.js';
import { defaultTokenFile, readTokenFile } from '../../src/ui/rest-token.js';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { type Browser, ensureChromium, launchBrowser } from './chromium.js';

// The documented screenshot is refreshed on request (WEIR_UPDATE_SCREENSHOT=1);
// otherwise the test still takes one, into the temp directory, so a broken page shows.
const SCREENSHOT =
  process.env.WEIR_UPDATE_SCREENSHOT === '1'
    ? fileURLToPath(new URL('../../docs/ui-screenshot.png', import.meta.url))
    : join(tmpdir(), `weir-ui-${process.pid}.png`);

describe('web UI in Chromium', () => {
  let demo: RunningCli;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    ensureChromium();
    demo = startWeir(
      ['demo', '--duration', '40', '--rate', '4000', '--window', '1', '-p', '2', '--ui-port', '0'],
      90_000,
    );
    [, url] = (await demo.waitFor('stdout', /web UI (http:\/\/127\.0\.0\.1:\d+\/)/)) as [
      string,
      string,
    ];
    browser = await launchBrowser();
  }, 20 * 60_000);

  afterAll(async () => {
    await browser?.close();
    demo?.child.kill('SIGINT');
    await demo?.done.catch(() => {});
  });

  it('shows the job graph and live numbers that update', async () => {
    const { jobs } = (await (await fetch(`${url}jobs`)).json()) as { jobs: { id: string }[] };
    const details = (await (await fetch(`${url}jobs/${jobs[0]!.id}`)).json()) as JobDetails;
    const operators = details.graph.operators.length;
    expect(operators).toBeGreaterThanOrEqual(7);

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    try {
      await checkPage(page, url, jobs[0]!.id, details, errors);
      await cancelFromPage(page, url);
    } catch (error) {
      // Say what the job was doing: a failed job explains numbers that did not move.
      const job = await (await fetch(`${url}jobs/${jobs[0]!.id}/exceptions`)).text();
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\nexceptions: ${job}\ndemo stdout: ${demo.output('stdout').slice(-2000)}\ndemo stderr: ${demo.output('stderr')}`,
        { cause: error },
      );
    }
  }, 90_000);
});

/** The page's Cancel button, with the token pasted from the job's token file, ends the job. */
async function cancelFromPage(page: Page, url: string): Promise<void> {
  const token = await readTokenFile(defaultTokenFile(Number(new URL(url).port)));
  await page.click('button[value="cancel"]');
  await expect
    .poll(() => page.locator('#savepoint-result').textContent())
    .toContain('failed: send the REST token');
  await page.fill('#savepoint-token', token);
  await page.click('button[value="cancel"]');
  await expect
    .poll(() => page.locator('#savepoint-result').textContent(), { timeout: 60_000 })
    .toBe('cancelled');
}

async function checkPage(
  page: Page,
  url: string,
  jobId: string,
  details: JobDetails,
  errors: readonly string[],
): Promise<void> {
  const operators = details.graph.operators.length;
  // The graph: one box per operator, edges labelled with their partitioning.
  await page.waitForSelector('#graph svg g.node');
  expect(await page.locator('#graph svg g.node').count()).toBe(operators);
  const labels = await page.locator('#graph .edge-label text').allTextContents();
  expect(labels).toContain('HASH');
  expect(labels).toContain('chained');
  expect(labels.some((l) => l.includes('side: late-clicks'))).toBe(true);
  await expect
    .poll(() => page.locator('#graph g.node[data-operator="clicks-0"] .meta').textContent())
    .toContain('parallelism 2');

  // Live numbers: the rate is up, and the records read grow between two looks.
  await expect
    .poll(async () => Number((await page.locator('#card-rate').textContent())?.replace(/k$/, '')), {
      timeout: 20_000,
    })
    .toBeGreaterThan(0);
  const readCount = async () =>
    Number((await page.locator('#card-read').textContent())?.replace(/,/g, ''));
  const before = await readCount();
  await expect.poll(readCount, { timeout: 10_000 }).toBeGreaterThan(before);
  await expect
    .poll(() => page.locator('#graph g.node[data-operator="page-counts"] .rate').textContent())
    .toMatch(/^in [\d.]+k?\/s · out/);
  expect(await page.locator('#operators tbody tr').count()).toBe(operators);
  await expect.poll(() => page.locator('#card-watermark').textContent()).toMatch(/^\d\d:\d\d:\d\d/);

  // Checkpoints (every 2 s with --ui) and the status; a few make a better screenshot.
  await expect
    .poll(() => page.locator('#checkpoints tbody tr.cp-completed').count(), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(3);
  expect(await page.locator('#job-status').textContent()).toBe('running');
  expect(await page.locator('#exceptions li').first().textContent()).toBe('No exceptions.');

  // The page shows what the API says.
  const metrics = (await (await fetch(`${url}jobs/${jobId}/metrics`)).json()) as JobMetrics;
  expect(metrics.operators.map((o) => o.id)).toEqual(details.graph.operators.map((o) => o.id));

  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(errors).toEqual([]);
}
