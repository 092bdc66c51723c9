import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHarness, expectAccessible, newEmail, startConsole } from '../support/browser.ts';
import { type OAuthStandIn, startOAuthStandIn } from '../support/oauth-stand-in.ts';

const PROVIDER = 'Stand-in SSO';

let standIn: OAuthStandIn;
let h: ConsoleHarness;
beforeAll(async () => {
  standIn = await startOAuthStandIn({ clientId: 'console-client' });
  h = await startConsole({ JWT_EXTERNAL_ISSUERS: JSON.stringify([standIn.externalIssuer(PROVIDER)]) });
  standIn.registerConsole(h.origin);
});
afterAll(async () => {
  await h?.stop();
  await standIn?.stop();
});

const signInButton = (page: Page) => page.getByRole('button', { name: `Sign in with ${PROVIDER}` });
const atStandIn = (page: Page) => page.getByRole('heading', { name: 'Sign in to the stand-in pool' });

/** From the console's sign-in page to the stand-in pool's own. */
async function goToProvider(page: Page, path = '/login') {
  await page.goto(path);
  await signInButton(page).click();
  await atStandIn(page).waitFor();
  expect(page.url().startsWith(`${standIn.domain}/oauth2/authorize?`)).toBe(true);
}

async function signInAtProvider(page: Page, email: string) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
}

const failure = (page: Page) => page.getByRole('alert').textContent();

describe('signing in through a hosted sign-in (a stand-in Cognito pool)', () => {
  it('is announced by a public route, as the OpenAPI document describes it: public client settings only', async () => {
    const res = await h.service.api('GET', '/auth/hosted-sign-in');
    expect(res.status).toBe(200);
    expect(res.body.data.providers).toEqual([
      {
        name: PROVIDER,
        issuer: standIn.issuer,
        clientId: 'console-client',
        authorizationEndpoint: `${standIn.domain}/oauth2/authorize`,
        tokenEndpoint: `${standIn.domain}/oauth2/token`,
        revocationEndpoint: `${standIn.domain}/oauth2/revoke`,
        logoutEndpoint: `${standIn.domain}/logout`,
        redirectUri: `${h.origin}/auth/callback`,
        logoutUri: `${h.origin}/login`,
        scopes: ['openid', 'email', 'profile'],
      },
    ]);
    // The page may call the provider's token endpoint, and nothing else beyond its own origin.
    const csp = (await fetch(`${h.origin}/login`)).headers.get('content-security-policy');
    expect(csp).toContain(`connect-src 'self' ${standIn.domain};`);
  });

  it('signs in through the provider, shows the tenant it maps to, stays signed in across a reload, and signing out ends the provider session too', async () => {
    const context = await h.newContext();
    const page = await context.newPage();
    const email = newEmail('hosted');

    // A signed-out visitor asks for a page, chooses the provider, and signs in there.
    await page.goto('/settings');
    await page.waitForURL(/\/login\?next=%2Fsettings/);
    await signInButton(page).waitFor();
    await expectAccessible(page, 'the sign-in page with a hosted sign-in');
    await signInButton(page).click();
    await atStandIn(page).waitFor();
    const authorize = new URL(page.url());
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'console-client',
      redirect_uri: `${h.origin}/auth/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    await signInAtProvider(page, email);

    // Back through /auth/callback to the page asked for, as the user the token names: a tenant of their own.
    await page.waitForURL(`${h.origin}/settings`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText(email).first().waitFor();
    expect(standIn.events).toContain(`tokens for ${email}`);
    // The tokens stay in memory: nothing in storage or cookies a script could read.
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + document.cookie')).not.toMatch(/eyJ/);
    expect(await page.evaluate('JSON.stringify({ ...sessionStorage })')).not.toMatch(/eyJ/);

    // The tenant's pages: a key made on the first-run page, a trace sent with it, found in the explorer.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Create an API key' }).click();
    const apiKey = (await page.getByTestId('new-key').textContent())!;
    const at = Date.now() - 60_000;
    const sent = await h.service.api('POST', '/spans', {
      apiKey,
      body: {
        spans: [{ traceId: 'hosted-trace-1', spanId: 'root', name: 'hosted run', kind: 'agent', agentName: 'sso-bot', startTime: at, endTime: at + 800 }],
      },
    });
    expect(sent.status).toBe(202);
    await page.getByText('Your first trace arrived.').waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'Traces', exact: true }).click();
    await page.getByRole('link', { name: 'hosted run' }).waitFor();

    // A reload loses the in-memory token; the provider's own session signs the tab in again at once.
    await page.reload();
    await page.waitForURL(`${h.origin}/traces`);
    await page.getByRole('link', { name: 'hosted run' }).waitFor();
    expect(standIn.events.filter((e) => e === `code for ${email}`)).toHaveLength(2);

    // Signing out revokes the refresh token and ends the provider's session: the next sign-in asks again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${h.origin}/login`);
    expect(standIn.events.slice(-2)).toEqual(['revoked', 'logout']);
    await page.goto('/traces');
    await page.waitForURL(/\/login\?next=%2Ftraces/);
    await signInButton(page).click();
    await atStandIn(page).waitFor();
  });

  it('says plainly when the provider refuses, when the answer is not the sign-in started here, and when the code expired', async () => {
    const page = await (await h.newContext()).newPage();

    // Cancelled at the provider.
    await goToProvider(page);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/auth\/callback\?error=access_denied/);
    await expect.poll(() => failure(page)).toBe(`Sign-in with ${PROVIDER} was cancelled or refused (access_denied).`);
    await page.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    await expectAccessible(page, 'a failed hosted sign-in');

    // An answer whose state is not the one this tab sent (a forged or crossed callback).
    await goToProvider(page);
    await page.goto(`/auth/callback?code=forged&state=forged`);
    await expect
      .poll(() => failure(page))
      .toBe(`The answer from ${PROVIDER} does not belong to the sign-in started here (its state does not match), so it was not used. Start again.`);

    // The same answer a second time: the sign-in it belonged to is over.
    await page.goto(`/auth/callback?code=forged&state=forged`);
    await expect.poll(() => failure(page)).toBe('This sign-in was not started in this tab, or it has already been finished. Start it again.');

    // A code that expired before the console exchanged it.
    standIn.setCodeLifetimeMs(0);
    try {
      await goToProvider(page);
      await signInAtProvider(page, newEmail('late'));
      await expect.poll(() => failure(page)).toBe(`The sign-in code from ${PROVIDER} has expired or was already used (invalid_grant). Start again.`);
    } finally {
      standIn.setCodeLifetimeMs(5 * 60_000);
    }
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await signInButton(page).waitFor();
  });
});
