import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setPlan } from '../bench/service.ts';
import { type ConsoleHarness, expectAccessible, newEmail, startConsole } from '../support/browser.ts';
import { type RegisteredTenant, registerTenant, signInContext } from '../support/console-seed.ts';

/**
 * The search page (GET /search/traces, POST /search/ask, "Export these results") and the exports page
 * (the list polled while an export runs, the authenticated download), on a Pro tenant whose traces
 * carry words of their own, and the plan's refusal on a trial tenant.
 */
let h: ConsoleHarness;
let pro: RegisteredTenant;
let page: Page;
let pageErrors: string[] = [];
let downloads: string;

const MINUTE = 60_000;
/** Twelve runs of the orchard bot about kumquats (three of them failing), two of the garden bot about persimmons. */
const KUMQUAT_IDS = Array.from({ length: 12 }, (_, i) => `kumquat-${String(i).padStart(2, '0')}`);
const FAILED_IDS = ['kumquat-01', 'kumquat-05', 'kumquat-09'];
const PERSIMMON_IDS = ['persimmon-a', 'persimmon-b'];

function run(traceId: string, agentName: string, at: number, ask: string, fail = false) {
  return [
    {
      traceId,
      spanId: 'root',
      name: 'answer ticket',
      kind: 'agent',
      agentName,
      startTime: at,
      endTime: at + 1500,
      status: fail ? 'error' : 'ok',
      ...(fail ? { errorType: 'CrateMissing', statusMessage: 'the crate was not in the warehouse' } : {}),
      input: ask,
      output: fail ? 'Sorry, I could not find it.' : 'It ships tomorrow.',
    },
    {
      traceId,
      spanId: 'llm',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      agentName,
      model: 'gpt-4o-mini',
      inputTokens: 500,
      outputTokens: 40,
      startTime: at + 100,
      endTime: at + 1400,
    },
  ];
}

async function searchIds(tenant: RegisteredTenant, q: string): Promise<string[]> {
  const res = await h.service.api('GET', `/search/traces?q=${encodeURIComponent(q)}&limit=100`, { token: tenant.token });
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body.data as Array<{ trace: { traceId: string } }>).map((hit) => hit.trace.traceId);
}

beforeAll(async () => {
  h = await startConsole();
  pro = await registerTenant(h.service, newEmail('search'));
  // There is no billing endpoint: the plan is changed in the store, as support would (test/bench/service.ts).
  await setPlan(pro.tenantId, 'pro');
  const now = Date.now();
  const spans = [
    ...KUMQUAT_IDS.flatMap((id, i) => run(id, 'orchard-bot', now - (i + 1) * 2 * MINUTE, `Please ship the kumquat crate number ${i}`, FAILED_IDS.includes(id))),
    ...PERSIMMON_IDS.flatMap((id, i) => run(id, 'garden-bot', now - (30 + i) * MINUTE, 'Where is my persimmon basket?')),
  ];
  const sent = await h.service.api('POST', '/spans', { apiKey: pro.apiKey, body: { spans } });
  expect(sent.status).toBe(202);
  await h.service.drainQueues(30_000);
  // The ingest worker writes each finished trace to the lake; searchable once it has.
  const deadline = Date.now() + 60_000;
  while ((await searchIds(pro, '')).length < KUMQUAT_IDS.length + PERSIMMON_IDS.length) {
    if (Date.now() > deadline) throw new Error('the seeded traces were not searchable in 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const context = await h.newContext();
  await signInContext(context, h.origin, pro);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  downloads = await mkdtemp(join(tmpdir(), 'aos-console-downloads-'));
}, 180_000);
afterAll(async () => {
  await h?.stop();
  if (downloads) await rm(downloads, { recursive: true, force: true });
});
beforeEach(() => {
  pageErrors = [];
});
afterEach(() => {
  expect(pageErrors, 'errors in the browser console').toEqual([]);
});

/** The trace ids of the search results table, once the answer for the URL is shown. */
async function resultIds(within = page.getByRole('region', { name: 'Results' })) {
  await within.locator('table.search-hits[aria-busy="false"]').waitFor();
  return within.locator('table.search-hits tbody tr td:first-child').allTextContents();
}

describe('the search page', () => {
  it('finds the traces a word names, with the words marked, each linking to its trace; the query in the URL', async () => {
    await page.goto('/search');
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    // The syntax is said in brief, in full when opened.
    await page.getByText('Search syntax:').click();
    await page.getByRole('cell', { name: 'attr.customer.tier:gold' }).waitFor();

    await page.getByLabel('Query', { exact: true }).fill('persimmon');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\/search\?q=persimmon$/);
    expect((await resultIds()).sort()).toEqual(PERSIMMON_IDS);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'persimmon-a', exact: true }) });
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('garden-bot');
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('answer ticket');
    expect(await row.locator('mark').first().textContent()).toMatch(/^persimmon$/i);
    await expectAccessible(page, 'the search results');

    await row.getByRole('link', { name: 'persimmon-a', exact: true }).click();
    await page.waitForURL(`${h.origin}/traces/persimmon-a`);
    await page.getByRole('heading', { level: 1, name: 'answer ticket' }).waitFor();
    // Back, the URL reproduces the search.
    await page.goBack();
    expect((await resultIds()).sort()).toEqual(PERSIMMON_IDS);
  });

  it('finds the traces a field term names, within the agent and range picked', async () => {
    await page.goto(`/search?q=${encodeURIComponent('status:error')}&range=24h`);
    expect((await resultIds()).sort()).toEqual(FAILED_IDS);
    await page.goto(`/search?q=${encodeURIComponent('agent:garden-bot')}`);
    expect((await resultIds()).sort()).toEqual(PERSIMMON_IDS);
    // The agent filter narrows a word's hits: no orchard-bot trace mentions a persimmon.
    await page.goto('/search?q=ship');
    expect(await resultIds()).toHaveLength(12);
    await page.getByLabel('Agent').selectOption({ label: 'garden-bot' });
    await page.waitForURL(/agentId=/);
    await page.getByText('No trace matches this search.').waitFor();
  });

  it('pages through more hits than a page by cursor, the page in the URL, the preset range pinned', async () => {
    await page.goto('/search?q=kumquat&range=24h&limit=10');
    const first = await resultIds();
    expect(first).toHaveLength(10);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByTestId('page-position').filter({ hasText: 'Page 2' }).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('cursor')).toBeTruthy();
    expect(url.searchParams.get('at')).toBeTruthy();
    await expect.poll(async () => (await resultIds()).length).toBe(2);
    const second = await resultIds();
    expect([...first, ...second].sort()).toEqual(KUMQUAT_IDS);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => resultIds()).toEqual(first);
  });

  it("asks a question in plain words: shows the query it ran and that query's results", async () => {
    await page.goto('/search');
    await page.getByLabel('Question in plain words').fill('failed orchard-bot runs');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByTestId('ask-answer');
    await answer.waitFor();
    const query = await answer.getByTestId('ask-query').textContent();
    expect(query).toContain('agent:orchard-bot');
    expect(query).toContain('status:error');
    expect((await answer.locator('table.search-hits tbody tr td:first-child').allTextContents()).sort()).toEqual(FAILED_IDS);
    await expectAccessible(page, 'the answer to a question');
    // The query as a search, a link that reproduces it.
    await answer.getByRole('link', { name: 'Open as a search' }).click();
    await page.waitForURL(/\/search\?q=/);
    expect(new URL(page.url()).searchParams.get('q')).toBe(query);
    expect((await resultIds()).sort()).toEqual(FAILED_IDS);
  });

  it("exports the results, watches the export on the exports page until it is written, and downloads its file under the API's name", async () => {
    await page.goto('/search?q=kumquat&range=24h');
    expect(await resultIds()).toHaveLength(12);
    const form = page.getByRole('form', { name: 'Export these results' });
    await form.getByLabel('Format').selectOption('csv');
    await form.getByRole('button', { name: 'Export these results' }).click();
    await page.waitForURL(`${h.origin}/exports`);
    await page.getByRole('heading', { level: 1, name: 'Exports' }).waitFor();
    const row = page.locator('table.exports tbody tr').first();
    await expect.poll(() => row.getByRole('cell').nth(1).textContent()).toBe('csv');
    expect(await row.getByRole('cell').nth(3).textContent()).toContain('kumquat');
    // Polled while queued or running: it turns to succeeded without a reload.
    await row.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await row.getByRole('cell').nth(5).textContent()).toBe('12');
    await expectAccessible(page, 'the exports page');

    const exportId = (await row.getByRole('cell').first().textContent())!;
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: `Download ${exportId}` }).click()]);
    expect(download.suggestedFilename()).toBe(`${exportId}.csv`);
    const file = join(downloads, download.suggestedFilename());
    await download.saveAs(file);
    const text = await readFile(file, 'utf8');
    for (const id of KUMQUAT_IDS) expect(text).toContain(id);
    for (const id of PERSIMMON_IDS) expect(text).not.toContain(id);
  });

  it('starts an export from the exports page: format, range, agent', async () => {
    await page.goto('/exports');
    const form = page.getByRole('form', { name: 'New export' });
    await form.getByLabel('Format').selectOption('jsonl');
    await form.getByLabel('Agent').selectOption({ label: 'garden-bot' });
    await form.getByRole('button', { name: 'Start export' }).click();
    await page.getByText(/is queued; it is listed below/).waitFor();
    const row = page.locator('table.exports tbody tr').first();
    await expect.poll(() => row.getByRole('cell').nth(1).textContent()).toBe('jsonl');
    await row.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await row.getByRole('cell').nth(5).textContent()).toBe('2');
  });

  it('reads the list again every 2 s while an export is under way, and stops once none is', async () => {
    // The exports are written already: the list is answered as if the newest still ran, until let go.
    let reads = 0;
    let running = true;
    await page.route(/\/api\/exports\?/, async (route) => {
      reads += 1;
      const response = await route.fetch();
      const body = await response.json();
      if (running) body.data[0] = { ...body.data[0], status: 'running', downloadUrl: undefined, expiresAt: undefined };
      await route.fulfill({ response, json: body });
    });
    try {
      await page.goto('/exports');
      const row = page.locator('table.exports tbody tr').first();
      await row.getByText('running', { exact: true }).waitFor();
      await expect.poll(() => reads, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      running = false;
      await row.getByText('succeeded', { exact: true }).waitFor({ timeout: 10_000 });
      const settled = reads;
      await page.waitForTimeout(5000);
      expect(reads).toBe(settled);
    } finally {
      await page.unroute(/\/api\/exports\?/);
    }
  });

  it('opens a presigned link (AWS) read afresh when asked for, not the one the list was read with', async () => {
    const bucket = 'https://lake-results.s3.amazonaws.com';
    const link = (signature: string) => `${bucket}/athena/tables/q/file.csv?X-Amz-Signature=${signature}`;
    const presigned = async (route: Parameters<Parameters<Page['route']>[1]>[0], signature: string) => {
      const response = await route.fetch();
      const body = await response.json();
      const withLink = (e: { status: string }) => (e.status === 'succeeded' ? { ...e, downloadUrl: link(signature) } : e);
      body.data = Array.isArray(body.data) ? body.data.map(withLink) : withLink(body.data);
      await route.fulfill({ response, json: body });
    };
    let opened: string | undefined;
    await page.route(/\/api\/exports\?/, (route) => presigned(route, 'read-an-hour-ago'));
    await page.route(/\/api\/exports\/[^/?]+$/, (route) => presigned(route, 'fresh'));
    await page.route(`${bucket}/**`, (route) => {
      opened = route.request().url();
      return route.fulfill({ status: 200, headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="file.csv"' }, body: 'a,b\n' });
    });
    try {
      await page.goto('/exports');
      const row = page.locator('table.exports tbody tr').first();
      const exportId = (await row.getByRole('cell').first().textContent())!;
      const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: `Download ${exportId}` }).click()]);
      expect(download.suggestedFilename()).toBe('file.csv');
      expect(opened).toBe(link('fresh'));
    } finally {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
    }
  });
});

describe('a tenant whose plan has no search', () => {
  it("is told so in the API's words, with how to start accounts on Pro locally", async () => {
    const trial = await registerTenant(h.service, newEmail('search-trial'));
    const context = await h.newContext();
    await signInContext(context, h.origin, trial);
    const trialPage = await context.newPage();
    await trialPage.goto('/search?q=kumquat');
    const refusal = trialPage.getByTestId('plan-refusal');
    await refusal.getByText(/Your plan \(.+\) does not include deepSearch/).waitFor();
    await refusal.getByText('SIGN_UP_PLAN=pro npm start').waitFor();
    await expectAccessible(trialPage, 'the search page refused for the plan');
    // Ask too.
    await trialPage.getByLabel('Question in plain words').fill('failed runs today');
    await trialPage.getByRole('button', { name: 'Ask', exact: true }).click();
    await trialPage.getByText(/does not include smartSearch/).waitFor();
  });
});
