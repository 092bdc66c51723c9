// `npm run screenshots`: a picture of every console page, into docs/screenshots/, from a tenant
// seeded through the API (test/support/console-seed.ts) on a local service of its own.
import { mkdir } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { ensureConsoleBuild } from '../../console/build.ts';
import { chromiumLaunchOptions } from '../support/chromium.ts';
import { consolePages, SEED_PASSWORD, seedTenant, signInContext } from '../support/console-seed.ts';
import { startTestService } from '../support/service.ts';
import '../support/env.ts';

const OUT = new URL('../../docs/screenshots/', import.meta.url);

const { dir } = await ensureConsoleBuild();
const service = await startTestService({
  consoleDir: dir,
  // On Pro, so that the search and exports pages show what they do rather than the trial's refusal.
  env: { RATE_LIMITS: JSON.stringify({ auth: 1000, standard: 10_000, strict: 1000, ingestion: 10_000 }), SIGN_UP_PLAN: 'pro' },
});
const browser = await chromium.launch(await chromiumLaunchOptions());
try {
  await mkdir(OUT, { recursive: true });
  const origin = service.baseUrl.replace(/\/api$/, '');
  const tenant = await seedTenant(service, 'ada@example.com');
  const context = await browser.newContext({
    baseURL: origin,
    viewport: { width: 1440, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.screenshot({ path: new URL('login.png', OUT).pathname });
  // The first run: a tenant with no trace yet is shown how to send one.
  const newcomer = await service.api('POST', '/auth/register', {
    body: { email: 'grace@example.com', password: SEED_PASSWORD, firstName: 'Grace', lastName: 'Hopper', company: 'Compilers' },
  });
  const newcomerRefresh = /aos_refresh=([^;]+)/.exec(newcomer.headers.getSetCookie().join('\n'))?.[1];
  if (newcomer.status !== 201 || !newcomerRefresh) throw new Error(`register answered ${newcomer.status}`);
  await signInContext(context, origin, { ...tenant, refreshToken: newcomerRefresh });
  await page.goto('/');
  await page.getByRole('heading', { name: 'Send your first trace' }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: new URL('first-run.png', OUT).pathname });
  console.log('docs/screenshots/first-run.png');

  // One export of the day's traces, finished, for the exports page.
  const day = { startDate: new Date(Date.now() - 86_400_000).toISOString(), endDate: new Date().toISOString() };
  const exported = await service.api('POST', '/exports', { apiKey: tenant.apiKey, body: { format: 'csv', ...day } });
  if (exported.status !== 202) throw new Error(`POST /exports answered ${exported.status}`);
  await service.drainQueues();

  await context.clearCookies();
  await signInContext(context, origin, tenant);
  for (const { name, path, heading } of consolePages(tenant)) {
    await page.goto(path);
    await page
      .getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) })
      .first()
      .waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: new URL(`${name}.png`, OUT).pathname });
    console.log(`docs/screenshots/${name}.png`);
  }
} finally {
  await browser.close();
  await service.stop();
}
