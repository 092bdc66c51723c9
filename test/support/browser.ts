import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { startTestService, type TestService } from './service.ts';

export interface ConsoleHarness {
  service: TestService;
  /** `http://127.0.0.1:<port>`: the console, with the API at `/api`. */
  origin: string;
  browser: Browser;
  /** A fresh browser profile (no cookies) on the console's origin. */
  newContext(): Promise<BrowserContext>;
  stop(): Promise<void>;
}

/** The local service serving the console build, and a connection to the run's shared Chromium. */
export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleHarness> {
  const service = await startTestService({
    consoleDir: inject('consoleDir'),
    env: { RATE_LIMITS: JSON.stringify({ auth: 10_000, standard: 10_000, strict: 10_000, ingestion: 10_000 }), ...env },
  });
  const origin = service.baseUrl.replace(/\/api$/, '');
  const browser = await chromium.connect(inject('browserWsEndpoint'));
  const contexts: BrowserContext[] = [];
  return {
    service,
    origin,
    browser,
    async newContext() {
      const context = await browser.newContext({ baseURL: origin, viewport: { width: 1400, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
      // Generous: CI's two cores run the service, the browser and other test files at once.
      context.setDefaultTimeout(30_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      contexts.push(context);
      return context;
    },
    async stop() {
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
      await browser.close();
      await service.stop();
    },
  };
}

/**
 * No serious or critical accessibility violation on the page as it is now (axe-core, WCAG 2.1 A and AA).
 * Legacy mode runs axe.run in the page itself. The default mode runs axe per frame and then merges
 * the results in a blank page it opens and injects axe into. That costs 1.5-2.5 s a check here, and
 * it is only needed for cross-origin frames, which the console has none of. Both modes found the same
 * passes, incomplete checks and violations on each of the console's pages.
 * Only the violations are read, so axe is asked to list every node only for them (`resultTypes`): the
 * other kinds keep one node each, which spares it a selector and a snippet for each node that passed.
 */
export async function expectAccessible(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page })
    .options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .setLegacyMode()
    .analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
  expect(serious, `accessibility of ${what}`).toEqual([]);
}

let seq = 0;
export const newEmail = (label: string) => `${label}-${Date.now()}-${++seq}@example.com`;
export const PASSWORD = 'correct-horse-battery';

/** Registers through the console's form; ends signed in on the first-run page. */
export async function registerInBrowser(page: Page, email: string) {
  await page.goto('/register');
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Send your first trace' }).waitFor();
}
