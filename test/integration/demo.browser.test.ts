import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../demo/playground.js';

/*
 * The playground (`npm run demo`) in headless Chromium: the real bot against the stand-in Slack and docs
 * platform, driven as a person would — a command, its card, the PR reply in the thread, a follow-up reply,
 * then a views report with its chart. DEMO_SCREENSHOTS=1 (npm run demo:screenshots) also writes the README's
 * screenshots into docs/images/.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const SCREENSHOTS = process.env.DEMO_SCREENSHOTS === '1';
const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');

if (!HAS_CHROMIUM)
  console.warn(`playground browser test skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);

describe.skipIf(!HAS_CHROMIUM)('the playground in headless Chromium', { timeout: 90_000 }, () => {
  let playground: Playground;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    playground = await startPlayground({ port: 0, jobWorkMs: 1500 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(playground.url);
  });

  afterAll(async () => {
    await browser?.close();
    await playground?.stop();
  });

  const send = async (text: string) => {
    await page.fill('#composer input', text);
    await page.press('#composer input', 'Enter');
  };

  it('runs a job: command, card, PR reply in the thread, a follow-up reply', async () => {
    await send('/docs-agent Fix the typo on the quickstart page');
    // The card's title is the instruction itself.
    const card = page
      .locator('#channel > .msg')
      .filter({ hasText: 'Fix the typo on the quickstart page' })
      .filter({ has: page.locator('details.thread') })
      .first();
    await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
    await expect
      .poll(() => card.locator('> .content > .blocks').innerText(), { timeout: 20_000 })
      .toContain('Fix the typo on the quickstart page');
    const thread = card.locator('details.thread');
    await expect
      .poll(() => thread.locator('.msg').filter({ hasText: 'pull request' }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => card.locator('a.btn', { hasText: /pull request/i }).count()).toBeGreaterThan(0);
    const repliesBefore = await thread.locator('.msg').count();

    await thread.locator('form.reply input').fill('Also fix the heading capitalisation');
    await thread.locator('form.reply input').press('Enter');
    await expect
      .poll(() => thread.locator('.msg').filter({ hasText: 'Also fix the heading capitalisation' }).count(), {
        timeout: 20_000,
      })
      .toBe(1);
    // The bot took the follow-up: it answered in the thread after the person's reply.
    await expect
      .poll(() => thread.locator('.msg').count(), { timeout: 20_000 })
      .toBeGreaterThan(repliesBefore + 1);
    const calls = await page.locator('#calls').innerText();
    expect(calls).toContain('chat.postMessage');
    expect(calls).toContain('chat.update');
    if (SCREENSHOTS) {
      mkdirSync(IMAGES, { recursive: true });
      await page.screenshot({ path: join(IMAGES, 'demo-channel.png') });
    }
  });

  it('shows a views report with its chart', async () => {
    await send('/docs-views');
    const report = page
      .locator('#channel > .msg')
      .filter({ has: page.locator('figure.chart') })
      .last();
    await expect.poll(() => report.count(), { timeout: 30_000 }).toBe(1);
    expect(await report.innerText()).toContain('/quickstart');
    await expect.poll(() => report.locator('figure.chart .col').count()).toBeGreaterThan(1);
    if (SCREENSHOTS) {
      await report.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(IMAGES, 'demo-report.png') });
    }
  });

  it('starts a job from App Home through its modal', async () => {
    await page.click('.tab[data-tab="home"]');
    const newJob = page.locator('#home button', { hasText: 'New job' });
    await expect.poll(() => newJob.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await newJob.first().click();
    const modal = page.locator('form.modal');
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(1);
    await modal.locator('textarea').fill('Document the webhook retry schedule');
    await modal.locator('button[type="submit"]').click();
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(0);
    await page.click('.tab[data-tab="channel"]');
    const card = page.locator('#channel > .msg').filter({ hasText: 'Document the webhook retry schedule' });
    await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
  });

  it('unfurls a pasted docs link', async () => {
    await send('Have a look at https://docs.acme.dev/guides/webhooks');
    const message = page.locator('#channel > .msg').filter({ hasText: 'Have a look at' });
    await expect.poll(() => message.locator('.unfurl').count(), { timeout: 20_000 }).toBe(1);
    expect(await message.locator('.unfurl').innerText()).toContain('/guides/webhooks');
  });
});
