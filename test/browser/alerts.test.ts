import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleHarness, newEmail, startConsole } from '../support/browser.ts';
import { type RegisteredTenant, registerTenant, signInContext } from '../support/console-seed.ts';

let h: ConsoleHarness;
let tenant: RegisteredTenant;
let page: Page;
beforeAll(async () => {
  h = await startConsole();
  tenant = await registerTenant(h.service, newEmail('alerts'));
  const context = await h.newContext();
  await signInContext(context, h.origin, tenant);
  page = await context.newPage();
}, 180_000);
afterAll(() => h?.stop());

let traces = 0;
/** A run of support-bot whose tool call fails: an `error` occurrence. */
async function failingRun() {
  const at = Date.now() - 60_000;
  const traceId = `alerts-trace-${++traces}`;
  const spans = [
    { traceId, spanId: 'root', name: 'answer ticket', kind: 'agent', agentName: 'support-bot', startTime: at, endTime: at + 1000 },
    {
      traceId,
      spanId: 'tool',
      parentSpanId: 'root',
      name: 'lookup order',
      kind: 'tool',
      agentName: 'support-bot',
      status: 'error',
      statusMessage: 'no such order',
      startTime: at,
      endTime: at + 500,
    },
  ];
  expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans } })).status).toBe(202);
  await h.service.drainQueues();
}
const errorAlerts = async () =>
  (await h.service.api('GET', '/spans/alerts?type=error', { apiKey: tenant.apiKey })).body.data as Array<{ id: string; status: string }>;

it('a refused reopen links the newer alert that is active instead', async () => {
  await failingRun();
  const [first] = await errorAlerts();
  expect((await h.service.api('PUT', `/spans/alerts/${first!.id}/resolve`, { apiKey: tenant.apiKey })).status).toBe(200);
  await failingRun();
  const newer = (await errorAlerts()).find((a) => a.status === 'open')!;

  await page.goto(`/alerts/${first!.id}`);
  await page.getByRole('button', { name: /^Reopen alert/ }).click();
  await page
    .getByRole('alert')
    .getByText(/^Cannot reopen: a newer error alert of this agent is active/)
    .waitFor();
  await page.getByRole('link', { name: 'Open the active error alert' }).click();
  await page.waitForURL(`**/alerts/${newer.id}`);
});

it('the alert editor says beside the field what would make alerts meaningless', async () => {
  const agentId = (await h.service.api('GET', '/agents', { apiKey: tenant.apiKey })).body.data[0].id as string;
  await page.goto(`/agents/${agentId}`);
  await page.getByRole('heading', { name: 'Alert configuration' }).waitFor();
  const problemOf = (path: string) => page.locator(`[id="problem-${path}"]`).textContent();
  await page.getByLabel('Timeout (ms)').fill('0');
  await page.locator('[id="problem-thresholds.timeout"]').waitFor();
  expect(await problemOf('thresholds.timeout')).toBe('Must be more than 0.');
  await page.getByLabel('Timeout (ms)').fill('10000');
  await page.getByLabel('Duration (ms)').fill('20000');
  await page.locator('[id="problem-thresholds.duration"]').waitFor();
  expect(await problemOf('thresholds.duration')).toMatch(/^Must be below the timeout threshold \(10000 ms\)/);
  await page.getByRole('button', { name: 'Add e-mail address' }).click();
  await page.getByLabel('E-mail address 1').fill('dup@example.com');
  await page.getByRole('button', { name: 'Add e-mail address' }).click();
  await page.getByLabel('E-mail address 2').fill('DUP@example.com');
  await page.locator('[id="problem-contacts.email.1.address"]').waitFor();
  expect(await problemOf('contacts.email.1.address')).toBe('Repeats e-mail address 1 (addresses are compared without case).');
  expect(await page.getByRole('button', { name: 'Save alert configuration' }).isDisabled()).toBe(true);
});
