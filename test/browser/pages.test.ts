import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, newEmail, startConsole, type ConsoleHarness } from '../support/browser.ts';
import { consolePages, seedTenant, signInContext, type SeededTenant } from '../support/console-seed.ts';

let h: ConsoleHarness;
let tenant: SeededTenant;
let page: Page;
beforeAll(async () => {
  h = await startConsole();
  tenant = await seedTenant(h.service, newEmail('pages'));
  const context = await h.newContext();
  await signInContext(context, h.origin, tenant);
  page = await context.newPage();
}, 180_000);
afterAll(() => h?.stop());

describe('every page opens at its own URL with no serious or critical accessibility violation', () => {
  const names = consolePages({} as SeededTenant).map((p) => p.name);
  it.each(names)('%s', async (name) => {
    const { path, heading } = consolePages(tenant).find((p) => p.name === name)!;
    await page.goto(path);
    await page.getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) }).first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('alert').count(), `${name}: an error is shown`).toBe(0);
    await expectAccessible(page, `${name} (${path})`);
  });

  it.each(['/login', '/register', '/forgot-password', '/reset-password?token=x'])('%s, signed out', async (path) => {
    const signedOut = await (await h.newContext()).newPage();
    await signedOut.goto(path);
    await signedOut.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(signedOut, path);
  });
});

describe('the trace page', () => {
  it('keeps a trace of 2,000 spans usable: only the visible rows are drawn, the last span is reached and shown', async () => {
    await page.goto(`/traces/${tenant.bigTraceId}`);
    const waterfall = page.getByTestId('waterfall');
    await waterfall.getByRole('button', { name: 'AGT long research task', exact: true }).waitFor();
    expect(await waterfall.locator('li').count()).toBeLessThan(80);
    await waterfall.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await waterfall.getByRole('button', { name: /step 1999$/ }).click();
    await page.getByRole('complementary', { name: 'Selected span' }).getByRole('heading', { name: /step 1999/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('span')).toBe('s1999');
    // Keyboard: up from the last span selects the one before it.
    await page.keyboard.press('ArrowUp');
    await page.waitForURL(/span=s1998/);
    // Folding a chain hides its nine children.
    await page.goto(`/traces/${tenant.bigTraceId}`);
    await waterfall.getByRole('button', { name: 'Collapse chain step 1', exact: true }).click();
    await waterfall.getByRole('button', { name: 'CHN chain step 11', exact: true }).waitFor();
    expect(await waterfall.getByRole('button', { name: /step 2$/ }).count()).toBe(0);
  });

  it('shows the judge\'s reasoning, logs and the alert of the trace', async () => {
    await page.goto(`/traces/${tenant.traceId}`);
    await page.getByText('The answer apologises but gives the customer nothing to act on.').waitFor();
    await page.getByText('orders service timed out').waitFor();
    await page.getByRole('region', { name: 'Alerts' }).getByRole('link').first().waitFor();
  });
});

describe('the API\'s errors', () => {
  it('are shown with the envelope\'s message next to the form that caused them', async () => {
    await page.goto('/experiments');
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Unbalanced');
    await page.getByLabel('Weight 2').fill('20');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('alert').filter({ hasText: 'variants: weights must sum to 100 (they sum to 70)' }).waitFor();
  });

  it('a missing or foreign id is the API\'s 404 message', async () => {
    await page.goto('/traces/no-such-trace');
    await page.getByRole('alert').filter({ hasText: /not found/i }).waitFor();
  });
});

describe('settings', () => {
  it('shows a new key once, with a copy button, and lists it by prefix only', async () => {
    await page.goto('/settings');
    await page.getByLabel('Key name').fill('ci runner');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'ci runner', exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);
    await page.getByText(/Spans this period: [\d,]+ of 10,000/).waitFor();
    await page.getByText(/\d+ trial days left/).waitFor();
  });
});
