import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../demo/playground.js';

/*
 * The playground (`npm run demo`) in headless Chromium: the real bot against the stand-in Slack and docs
 * platform, driven as a person would — the seeded channel, each button of the scenario bar, the assistant
 * split view, App Home's tabs, a message's hover menu and the API log — asserting what is drawn.
 * DEMO_SCREENSHOTS=1 (npm run demo:screenshots) also writes the pictures into docs/images/ (emoji need a
 * colour emoji font, Debian's fonts-noto-color-emoji).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const SCREENSHOTS = process.env.DEMO_SCREENSHOTS === '1';
const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
/** The reader's zone: times must be drawn in it, not in UTC. */
const ZONE = 'America/New_York';

if (!HAS_CHROMIUM)
  console.warn(`playground browser test skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);

describe.skipIf(!HAS_CHROMIUM)('the playground in headless Chromium', { timeout: 90_000 }, () => {
  let playground: Playground;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    playground = await startPlayground({ port: 0, jobWorkMs: 1500 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: playground.url });
    page = await context.newPage();
    await page.goto(playground.url);
    await playground.seeded;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await playground?.stop();
  });

  const picture = async (name: string, target?: Locator) => {
    if (!SCREENSHOTS) return;
    mkdirSync(join(IMAGES, 'before-after'), { recursive: true });
    const path = join(IMAGES, 'before-after', `playground-${name}-after.png`);
    if (!target) return void (await page.screenshot({ path }));
    // A tall message gets a tall window; the hover menu above a message stays in the picture.
    const height = (await target.boundingBox())?.height ?? 0;
    if (height > 500)
      await page.setViewportSize({ width: 1280, height: Math.min(4000, Math.ceil(height) + 400) });
    await target.scrollIntoViewIfNeeded();
    const box = await target.boundingBox();
    if (box) {
      const y = Math.max(0, box.y - 24);
      await page.screenshot({ path, clip: { x: 0, y, width: 1280, height: box.height + (box.y - y) + 8 } });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const top = (text: string | RegExp) => page.locator('#channel > .msg').filter({ hasText: text });
  const scenario = (name: string) => page.click(`.scenario[data-scenario="${name}"]`);
  const send = async (text: string) => {
    await page.fill('#composer input', text);
    await page.press('#composer input', 'Enter');
  };

  it('opens on a seeded channel: a finished job with its PR and follow-up, a running job, an alert, a weekly post', async () => {
    const done = top('Fix the typo in the quickstart install step').first();
    await expect.poll(() => done.locator('details.thread .msg').count(), { timeout: 20_000 }).toBe(3);
    const thread = await done.locator('details.thread').innerText();
    expect(thread).toContain('opened pull request');
    expect(thread).toContain('Also say that Node 22 or newer is required');
    expect(thread).toContain('finished the follow-up');
    // Primary buttons are green, links are links.
    const button = done.locator('.btn.primary', { hasText: 'View pull request' }).first();
    // Polled: a refresh of the fragment may detach the button between finding and reading it.
    await expect
      .poll(() =>
        button.evaluate(
          (el) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
            ).getComputedStyle(el).backgroundColor,
        ),
      )
      .toBe('rgb(0, 122, 90)');
    expect(await done.locator('a[href="https://github.com/acme/docs/pull/141"]').count()).toBeGreaterThan(0);
    await expect.poll(() => top('Document the webhook retry schedule').innerText()).toContain('Working');
    const alert = top('sso saml setup');
    expect(await alert.innerText()).toContain('🔔');
    const weekly = top('Weekly post set up by');
    // Polled like the cards above: the playground seeds its channel while the page loads.
    await expect.poll(() => weekly.count(), { timeout: 20_000 }).toBe(1);
    expect(await weekly.locator('figure.chart[data-kind="line"] polyline.series').count()).toBeGreaterThan(0);
    // Emoji as emoji, never as `:name:`; times in the reader's zone, never the UTC fallback.
    const text = await page.locator('#channel').innerText();
    expect(text).not.toMatch(/:[a-z_]+:/);
    const time = page.locator('#channel .msg-time time').first();
    await expect.poll(() => time.getAttribute('data-local')).toBe('1');
    const epoch = Number(await time.getAttribute('data-epoch'));
    const expected = new Date(epoch * 1000).toLocaleTimeString('en-US', {
      hour: 'numeric',
      minute: '2-digit',
      timeZone: ZONE,
    });
    expect(await time.innerText()).toBe(expected);
    await picture('channel');
  });

  it('[Job fails]: a failed job card with its failure reply', async () => {
    await scenario('job-fails');
    const card = top('Move the SDK pages under /sdks/v2');
    await expect.poll(() => card.innerText(), { timeout: 30_000 }).toMatch(/failed/i);
    await expect
      .poll(() => card.locator('details.thread .msg').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await picture('job-failed', card);
  });

  it('[Alert fires]: a new alert for the search term that surged', async () => {
    await scenario('alert-fires');
    const alert = top('webhook signature invalid');
    await expect.poll(() => alert.count(), { timeout: 45_000 }).toBe(1);
    expect(await alert.innerText()).toContain('🔔');
    await picture('health-alert', alert);
  });

  it('[Weekly post]: a weekly post, now rather than next week', async () => {
    const posts = top('Weekly post set up by');
    const before = await posts.count();
    await scenario('weekly-post');
    await expect.poll(() => posts.count(), { timeout: 30_000 }).toBe(before + 1);
    const post = posts.last();
    // The second weekly post is the docs-health one (the first was page views).
    expect(await post.innerText()).toMatch(/health/i);
    await picture('weekly-post', post);
  });

  it('[Paste a docs link]: the link unfurls with the page’s numbers', async () => {
    await scenario('paste-link');
    const message = top('still right about retries');
    await expect.poll(() => message.locator('.unfurl').count(), { timeout: 20_000 }).toBe(1);
    expect(await message.locator('.unfurl').innerText()).toContain('/guides/webhooks');
    await picture('docs-link', message);
  });

  it('a message’s hover menu: the reaction starts a job, the shortcut opens the job form', async () => {
    const message = top('still right about retries');
    await message.hover();
    const menu = message.locator('> .hover-menu');
    await expect.poll(() => menu.isVisible()).toBe(true);
    await menu.locator('[data-shortcut]').click();
    await expect.poll(() => menu.locator('[data-shortcut-run]').isVisible()).toBe(true);
    await picture('hover-menu', message);
    await menu.locator('[data-shortcut-run]').click();
    const modal = page.locator('form.modal');
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(1);
    expect(await modal.locator('textarea').inputValue()).toContain('still right about retries');
    await modal.locator('[data-close]').click();
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(0);

    await message.hover();
    await menu.locator('[data-react="memo"]').click();
    await expect.poll(() => message.locator('.reaction[data-reaction="memo"]').count()).toBe(1);
    // The bot took the reaction as an instruction: its job card is in the message's thread.
    await expect
      .poll(() => message.locator('details.thread .msg').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
  });

  it('[Open assistant]: the split view with the bot’s prompts; a prompt gets its answer', async () => {
    await scenario('open-assistant');
    const pane = page.locator('#assistant');
    await expect.poll(() => pane.locator('.prompt').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await page.locator('#channel').isVisible()).toBe(true);
    const before = await pane.locator('.msg').count();
    await pane.locator('.prompt', { hasText: 'Top pages' }).click();
    await expect.poll(() => pane.locator('.msg').count(), { timeout: 30_000 }).toBeGreaterThan(before + 1);
    await expect
      .poll(() => pane.locator('.assistant-thread').innerText(), { timeout: 30_000 })
      .toContain('/quickstart');
    await picture('assistant');
  });

  it('App Home: Home from the bot’s views.publish, then Messages and About', async () => {
    await page.click('.tab[data-tab="home"]');
    const home = page.locator('[data-home-panel="home"]');
    await expect
      .poll(() => home.locator('button', { hasText: 'New job' }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    // The bot's Home quotes each job's instruction: drawn as a quote, not as `&gt;`.
    expect(await home.locator('blockquote').count()).toBeGreaterThan(0);
    await picture('app-home');
    await page.click('[data-home-tab="messages"]');
    expect(await page.locator('[data-home-panel="messages"]').isVisible()).toBe(true);
    await page.click('[data-home-tab="about"]');
    expect(await page.locator('[data-home-panel="about"]').innerText()).toContain('/docs-agent');
    await page.click('[data-home-tab="home"]');
    await home.locator('button', { hasText: 'New job' }).first().click();
    const modal = page.locator('form.modal');
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(1);
    await modal.locator('textarea').fill('Document the rate limit headers');
    await modal.locator('button[type="submit"]').click();
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(0);
    await page.click('.tab[data-tab="channel"]');
    await expect.poll(() => top('Document the rate limit headers').count(), { timeout: 20_000 }).toBe(1);
  });

  it('App Home: a weekly post edited in its form, in the person’s Slack time zone', async () => {
    await page.click('.tab[data-tab="home"]');
    const home = page.locator('[data-home-panel="home"]');
    const edit = 'edit|health|C0DEMODOCS';
    const menu = home.locator('select[data-action="home_weekly_menu"]').filter({
      has: page.locator(`option[value="${edit}"]`),
    });
    await expect.poll(() => menu.count(), { timeout: 20_000 }).toBe(1);
    await menu.selectOption(edit);
    const modal = page.locator('form.modal');
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(1);
    expect(await modal.innerText()).toContain('Your time zone: Europe/Berlin');
    await modal.locator('select[name="weekly_day"]').selectOption('3');
    await modal.locator('input[name="weekly_time"]').fill('08:30');
    await modal.locator('button[type="submit"]').click();
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(0);
    await expect
      .poll(() => home.innerText(), { timeout: 20_000 })
      .toContain('every Wednesday at 08:30 (Europe/Berlin)');
    await page.click('.tab[data-tab="channel"]');
  });

  it('the API log is collapsed, in time order with times; a message’s Block Kit JSON is copied', async () => {
    const log = page.locator('#calls');
    expect(await log.getAttribute('open')).toBeNull();
    await log.locator('summary').click();
    const epochs = await log
      .locator('li time')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-epoch'))));
    expect(epochs.length).toBeGreaterThan(10);
    expect([...epochs].sort((a, b) => a - b)).toEqual(epochs);
    expect(await log.innerText()).toContain('chat.postMessage');
    await log.locator('summary').click();

    await send('/docs-views');
    const report = page
      .locator('#channel > .msg')
      .filter({ hasText: 'Only visible to you' })
      .filter({ has: page.locator('figure.chart') })
      .last();
    await expect.poll(() => report.count(), { timeout: 30_000 }).toBe(1);
    expect(await report.innerText()).toContain('/quickstart');
    const alert = top('sso saml setup');
    await alert.hover();
    await alert.locator('> .hover-menu [data-copy-json]').click();
    // The clipboard, not the button's "Copied" (a refresh of the fragment may redraw the button).
    const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
    await expect.poll(clipboard).toContain('"blocks"');
    const copied = JSON.parse(await clipboard()) as { blocks: unknown[] };
    expect(JSON.stringify(copied.blocks)).toContain('sso saml setup');
  });

  it('[Reset]: a fresh bot, seeded again', async () => {
    await scenario('reset');
    await expect.poll(() => top('Move the SDK pages under /sdks/v2').count(), { timeout: 30_000 }).toBe(0);
    await playground.seeded;
    await expect
      .poll(() => top('Fix the typo in the quickstart install step').count(), { timeout: 20_000 })
      .toBe(1);
  });
});
