import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHarness, expectAccessible, newEmail, PASSWORD, registerInBrowser, startConsole } from '../support/browser.ts';

let h: ConsoleHarness;
beforeAll(async () => {
  h = await startConsole();
});
afterAll(() => h?.stop());

async function signInForm(page: Page, email: string, password = PASSWORD) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('signing in', () => {
  it('takes a signed-out visitor to sign in, then back to the page asked for', async () => {
    const email = newEmail('back');
    await h.service.api('POST', '/auth/register', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    const page = await (await h.newContext()).newPage();
    await page.goto('/alerts?severity=critical');
    await page.waitForURL(/\/login\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/alerts?severity=critical');
    await expectAccessible(page, 'the sign-in page');
    await signInForm(page, email, 'wrong-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid e-mail or password (UNAUTHORIZED)');
    await signInForm(page, email);
    await page.waitForURL(/\/alerts\?severity=critical$/);
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
  });

  it('goes to the overview after signing in when `next` leads to another host, as the browser reads it', async () => {
    const email = newEmail('next');
    await h.service.api('POST', '/auth/register', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    for (const next of ['/\\evil.example', '/\t/evil.example', '//evil.example', '//a b']) {
      const page = await (await h.newContext()).newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await signInForm(page, email);
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      expect(await page.getByText('Unexpected Application Error').count(), next).toBe(0);
      expect(errors, next).toEqual([]);
    }
  });

  it('stays signed in across reloads through the refresh cookie, which scripts cannot read', async () => {
    const context = await h.newContext();
    const page = await context.newPage();
    await registerInBrowser(page, newEmail('reload'));
    expect(await page.evaluate('document.cookie')).toBe('');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'aos_refresh', httpOnly: true, secure: true, sameSite: 'Strict', path: '/api/auth' });
    await page.goto('/settings');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    // One refresh per page load (the boot script's, which the console takes): a second with the same token would end the sign-in.
    // Routing the assets turns the HTTP cache off, so the page loads as on a first visit (the boot script ahead of the console's code).
    // Each refresh sent, with its answer's status: a 429 or 5xx refuses nothing, and the console sends it again once the answer allows.
    const sentRefreshes = new Map<Request, string>();
    const isRefresh = (request: Request) => new URL(request.url()).pathname === '/api/auth/refresh';
    page.on('request', (request) => isRefresh(request) && sentRefreshes.set(request, request.method()));
    // The page's other API answers that were not a success, named in a failure: a 401 sends a refresh of its own (api/client.ts).
    const refused: string[] = [];
    page.on(
      'response',
      (res) =>
        new URL(res.url()).pathname.startsWith('/api/') &&
        !isRefresh(res.request()) &&
        res.status() >= 400 &&
        refused.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`),
    );
    // Read from each request's own answer, awaited, so that no answer's event is raced by the assertion.
    const answered = async () => {
      for (const request of sentRefreshes.keys()) {
        const res = await request.response().catch(() => null);
        sentRefreshes.set(request, `${request.method()} ${res ? res.status() : request.failure()?.errorText}`);
      }
      return [...sentRefreshes.values()];
    };
    const deciding = async () => (await answered()).filter((refresh) => !/ (429|5\d\d)$/.test(refresh));
    const seen = () => `refreshes: ${[...sentRefreshes.values()].join(', ')}; other answers refused: ${refused.join(', ') || 'none'}`;
    await page.route('**/assets/**', (route) => route.continue());
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).toMatch(/\/settings$/);
    // Any second refresh would have been sent by now: the page shows once the console's refresh answered.
    const decided = await deciding();
    expect(decided, seen()).toEqual(['POST 200']);
    // A signed-out page sends none.
    const sent = sentRefreshes.size;
    await page.goto('/login');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(sentRefreshes.size, seen()).toBe(sent);
  });

  it('stays signed in when the refresh is refused for the moment (429), sending it again once the answer allows', async () => {
    const context = await h.newContext();
    const page = await context.newPage();
    await registerInBrowser(page, newEmail('busy'));
    let refused = 0;
    await page.route('**/api/auth/refresh', async (route) => {
      if (refused++ > 0) return route.continue();
      await route.fulfill({
        status: 429,
        headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
        body: JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded; retry after 1 s' } }),
      });
    });
    await page.goto('/settings');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    expect(refused).toBe(2);
  });

  it('returns to sign-in and back when the API answers 401, and signing out ends the sign-in', async () => {
    const context = await h.newContext();
    const page = await context.newPage();
    const email = newEmail('expired');
    await registerInBrowser(page, email);
    // The sign-in ends elsewhere (the refresh cookie is gone, the access token refused).
    await context.clearCookies();
    await page.route('**/api/agents?**', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid authentication' } }),
      }),
    );
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.waitForURL(/\/login\?next=%2Fagents/);
    await page.unroute('**/api/agents?**');
    await signInForm(page, email);
    await page.waitForURL(/\/agents$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto('/agents');
    await page.waitForURL(/\/login\?next=%2Fagents/);
  });

  it('resets a forgotten password through the e-mailed link', async () => {
    const email = newEmail('reset');
    await h.service.api('POST', '/auth/register', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    const page = await (await h.newContext()).newPage();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The page loads lazily: filling before it shows would fill the sign-in form's field.
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'E-mail me a reset link' }).click();
    await page.getByText('a reset link is on its way').waitFor();
    await expectAccessible(page, 'the forgotten-password page');
    const mail = await h.service.waitForOutbox((m) => m.to === email && /reset/i.test(m.subject ?? ''), 10_000);
    const link = /(http:\/\/\S+\/reset-password\?token=\S+)/.exec(mail.text)![1]!;
    expect(link.startsWith(h.origin)).toBe(true);
    await page.goto(link);
    await expectAccessible(page, 'the reset-password page');
    await page.getByLabel(/New password/).fill('another-horse-battery');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password has been changed').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signInForm(page, email, 'another-horse-battery');
    await page.getByRole('heading', { name: 'Send your first trace' }).waitFor();
  });

  it('verifies the e-mail address through the welcome e-mail, once', async () => {
    const email = newEmail('verify');
    const page = await (await h.newContext()).newPage();
    await registerInBrowser(page, email);
    const mail = await h.service.waitForOutbox((m) => m.to === email && /verify/i.test(m.subject ?? ''), 10_000);
    const link = /(http:\/\/\S+\/verify-email\?token=\S+)/.exec(mail.text)![1]!;
    await page.goto(link);
    await page.getByText('Your e-mail address is verified.').waitFor();
    await expectAccessible(page, 'the verify-email page');
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'token: invalid, expired or already used' }).waitFor();
    await page.goto('/settings');
    await page.getByText('verified', { exact: true }).waitFor();
  });
});
