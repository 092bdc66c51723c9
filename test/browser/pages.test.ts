import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '#shared/store/client.ts';
import { sessionsRepository } from '#shared/store/sessions.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { type ConsoleHarness, expectAccessible, newEmail, startConsole } from '../support/browser.ts';
import { consolePages, SEED_PASSWORD, SESSION_TURNS, SESSION_USER, type SeededTenant, seedTenant, signInContext } from '../support/console-seed.ts';
import { keptWholeText, largeNativeTrace } from '../support/spans.ts';

const MINUTE = 60_000;

let h: ConsoleHarness;
let tenant: SeededTenant;
let page: Page;
/** What the page threw or logged as an error during the test (checked by the tests that clear it). */
let pageErrors: string[] = [];
beforeAll(async () => {
  h = await startConsole();
  tenant = await seedTenant(h.service, newEmail('pages'));
  const context = await h.newContext();
  await signInContext(context, h.origin, tenant);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
}, 180_000);
afterAll(() => h?.stop());

describe('every page opens at its own URL with no serious or critical accessibility violation', () => {
  const names = consolePages({} as SeededTenant).map((p) => p.name);
  it.each(names)('%s', async (name) => {
    const { path, heading } = consolePages(tenant).find((p) => p.name === name)!;
    await page.goto(path);
    await page
      .getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) })
      .first()
      .waitFor();
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
    await page
      .getByRole('complementary', { name: 'Selected span' })
      .getByRole('heading', { name: /step 1999/ })
      .waitFor();
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

  it("shows the judge's reasoning, logs and the alert of the trace", async () => {
    await page.goto(`/traces/${tenant.traceId}`);
    await page.getByText('The answer apologises but gives the customer nothing to act on.').waitFor();
    await page.getByText('orders service timed out').waitFor();
    // The alert by its type; its message only when its latest occurrence is this trace's.
    const alert = (await h.service.api('GET', `/spans/alerts/${tenant.alertId}`, { apiKey: tenant.apiKey })).body.data;
    const item = page
      .getByRole('region', { name: 'Alerts' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: alert.type, exact: true }) });
    await item.waitFor();
    const said = alert.traceIds[0] === tenant.traceId ? alert.message : `one of ${alert.occurrenceCount} occurrences; the latest is another trace's`;
    await item.getByText(said, { exact: true }).waitFor();
  });

  it('reads a trace too large for one answer page by page, and shows every span', async () => {
    // Two days back: out of the last 24 hours the explorer's paging test counts.
    const spans = largeNativeTrace('trace-large', 150, Date.now() - 2 * 24 * 60 * MINUTE);
    for (let i = 0; i < spans.length; i += 50) {
      expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans: spans.slice(i, i + 50) } })).status).toBe(202);
    }
    await h.service.drainQueues();
    const answers: Array<string | null> = [];
    const seen = (response: import('playwright-core').Response) => {
      const url = new URL(response.url());
      if (url.pathname.endsWith('/spans/traces/trace-large')) answers.push(url.searchParams.get('cursor'));
    };
    page.on('response', seen);
    // The later pages wait until the page has been seen saying how far it got.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/spans\/traces\/trace-large\?cursor=/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/traces/trace-large');
    const waterfall = page.getByTestId('waterfall');
    await waterfall.getByRole('button', { name: 'AGT long research run', exact: true }).waitFor();
    await page.getByText(/^Reading the spans: \d+ of 150 so far\.$/).waitFor();
    release();
    await expect.poll(() => page.getByText(/^Reading the spans/).count(), { timeout: 20_000 }).toBe(0);
    await page.unroute(/\/spans\/traces\/trace-large\?cursor=/);
    page.off('response', seen);
    await waterfall.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await waterfall.getByRole('button', { name: 'LLM step 148', exact: true }).click();
    await page.getByRole('complementary', { name: 'Selected span' }).getByText(keptWholeText('answer', 148).slice(0, 20)).first().waitFor();
    expect(answers.length).toBeGreaterThan(1);
    expect(answers[0]).toBeNull();
  });

  it("names a span's agent where a sub-agent takes over, and the selected span's agent", async () => {
    const at = Date.now() - 2 * 24 * 60 * MINUTE;
    const span = (spanId: string, parentSpanId: string | undefined, name: string, kind: string, agentName: string | undefined, offset: number) => ({
      traceId: 'trace-handoff',
      spanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      name,
      kind,
      ...(agentName ? { agentName } : {}),
      startTime: at + offset,
      endTime: at + offset + 100,
    });
    const spans = [
      { ...span('root', undefined, 'plan a trip', 'agent', 'planner', 0), endTime: at + 1000 },
      span('ask', 'root', 'choose cities', 'llm', 'planner', 10),
      { ...span('delegate', 'root', 'research hotels', 'agent', 'hotel-scout', 200), endTime: at + 900 },
      span('lookup', 'delegate', 'search hotels', 'tool', undefined, 300),
    ];
    expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans } })).status).toBe(202);
    await h.service.drainQueues();

    await page.goto('/traces/trace-handoff');
    const waterfall = page.getByTestId('waterfall');
    await waterfall.getByRole('button', { name: 'AGT research hotels hotel-scout', exact: true }).waitFor();
    // The planner's own spans, and the tool inside the sub-agent, say no agent of their own.
    for (const name of ['AGT plan a trip', 'LLM choose cities', 'TOOL search hotels']) {
      await waterfall.getByRole('button', { name, exact: true }).waitFor();
    }
    await waterfall.getByRole('button', { name: 'TOOL search hotels', exact: true }).click();
    const panel = page.getByRole('complementary', { name: 'Selected span' });
    await panel.getByRole('heading', { name: /search hotels/ }).waitFor();
    // A span naming no agent is its nearest ancestor's: the tool is the sub-agent's.
    const agents = (await h.service.api('GET', '/agents?limit=100', { apiKey: tenant.apiKey })).body.data as Array<{ id: string; name: string }>;
    const link = panel.getByRole('link', { name: 'hotel-scout', exact: true });
    expect(await link.getAttribute('href')).toBe(`/agents/${agents.find((a) => a.name === 'hotel-scout')!.id}`);
  });
});

/** The rows of the traces table as their trace ids, once the answer for the URL is shown. */
async function traceRows() {
  await page.locator('table.traces[aria-busy="false"]').waitFor();
  return page.locator('table.traces tbody tr .mono').allTextContents();
}

describe('the traces explorer', () => {
  beforeEach(() => {
    pageErrors = [];
  });
  afterEach(() => {
    expect(pageErrors, 'errors in the browser console').toEqual([]);
  });

  it("filters by a tool's error type typed in, holds it in the URL, and checks a number as the API does before asking", async () => {
    await page.goto('/traces');
    await page.getByLabel('Error type').fill('Timeout');
    await page.getByLabel('Error type').press('Enter');
    await page.waitForURL(/\/traces\?errorType=Timeout$/);
    // The seed's failing runs (every fifth from the second) time out in their tool call.
    await expect.poll(async () => (await traceRows()).sort()).toEqual(['trace-01', 'trace-06', 'trace-11', 'trace-16', 'trace-21']);
    await page.getByTestId('page-position').filter({ hasText: 'Page 1 · 5 traces' }).waitFor();
    await expectAccessible(page, 'the traces page filtered by error type');

    // The link reproduces the view; a bad number is the API's own message, under its field, and nothing is asked.
    const requests: string[] = [];
    const onRequest = (r: { url(): string }) => r.url().includes('/api/spans/traces') && requests.push(r.url());
    page.on('request', onRequest);
    await page.getByLabel('Min duration (ms)').fill('2.5');
    await page.getByLabel('Min duration (ms)').press('Enter');
    await page.waitForURL(/minDurationMs=2\.5/);
    await page.getByText('minDurationMs: must be a whole number').waitFor();
    expect(await page.getByLabel(/^Min duration/).getAttribute('aria-invalid')).toBe('true');
    page.off('request', onRequest);
    expect(requests).toEqual([]);
    await expectAccessible(page, 'the traces page with a filter the API would refuse');
    await page.getByLabel(/^Min duration/).fill('2600');
    await page.getByLabel(/^Min duration/).press('Enter');
    await page.waitForURL(/minDurationMs=2600/);
    await expect.poll(async () => (await traceRows()).length).toBe(5);
    // Each of them raised an alert; none of them raised none.
    await page.getByLabel(/^Alerts/).selectOption('false');
    await page.waitForURL(/hasAlert=false/);
    await page.getByText('No trace matches these filters.').waitFor();
    await page.getByLabel(/^Alerts/).selectOption('true');
    await page.waitForURL(/hasAlert=true/);
    await expect.poll(async () => (await traceRows()).length).toBe(5);
    await page.goBack();
    await page.getByText('No trace matches these filters.').waitFor();
  });

  it('asks for the first page once when opened by its URL: the request sent as the page loads is the one the page uses', async () => {
    const lists: string[] = [];
    const onRequest = (r: { url(): string }) => new URL(r.url()).pathname === '/api/spans/traces' && lists.push(r.url());
    page.on('request', onRequest);
    await page.goto('/traces');
    await traceRows();
    page.off('request', onRequest);
    expect(lists).toEqual([`${h.origin}/api/spans/traces?limit=50`]);
  });

  it('opens a trace by its id from the "Go to a trace" box', async () => {
    await page.goto('/traces');
    const box = page.getByRole('form', { name: 'Go to a trace' });
    await box.getByLabel('Trace id').fill(` ${tenant.traceId} `);
    await box.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${h.origin}/traces/${tenant.traceId}`);
    await page.getByRole('heading', { level: 1, name: 'answer ticket' }).waitFor();
  });

  it('pages by cursor to the second page and back, the page in the URL', async () => {
    await page.goto('/traces?range=24h&limit=10');
    const first = await traceRows();
    expect(first).toHaveLength(10);
    // 24 runs and the trace of 2,000 spans, counted exactly.
    await page.getByTestId('page-position').filter({ hasText: 'Page 1 · 25 traces' }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByTestId('page-position').filter({ hasText: 'Page 2 · 25 traces' }).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('cursor')).toBeTruthy();
    // The preset range is pinned where the first page read it, so the cursor's query stays the same.
    expect(url.searchParams.get('at')).toBeTruthy();
    await expect.poll(async () => (await traceRows()).filter((id) => first.includes(id))).toEqual([]);
    const second = await traceRows();
    expect(second).toHaveLength(10);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    await expectAccessible(page, 'the second page of traces');
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByTestId('page-position').filter({ hasText: 'Page 1' }).waitFor();
    expect(new URL(page.url()).searchParams.get('cursor')).toBeNull();
    await expect.poll(() => traceRows()).toEqual(first);

    // A link to the second page reproduces it, and offers the first page.
    await page.goto(url.pathname + url.search);
    expect(await traceRows()).toEqual(second);
    await page.getByRole('button', { name: 'First page' }).click();
    await expect.poll(() => traceRows()).toEqual(first);
  });

  it("filters by a tag and by a metadata value, holds both in the URL through a reload, and shows the trace's tags and metadata", async () => {
    // Thirty hours ago: outside the last 24 hours the paging test counts.
    const at = Date.now() - 30 * 60 * MINUTE;
    const root = { traceId: 'trace-tagged', spanId: 'root', name: 'refund order', kind: 'agent', agentName: 'support-bot', startTime: at, endTime: at + 1500 };
    const spans = [
      { ...root, tags: ['vip', 'refund-flow'], metadata: { plan: 'enterprise', seats: 12 } },
      {
        traceId: 'trace-tagged',
        spanId: 'pay',
        parentSpanId: 'root',
        name: 'refund payment',
        kind: 'tool',
        toolName: 'payments.refund',
        startTime: at + 200,
        endTime: at + 900,
        metadata: { region: 'eu-west', 'a=b': 'c' },
      },
    ];
    expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans } })).status).toBe(202);
    await h.service.drainQueues();

    await page.goto('/traces');
    const tag = page.getByLabel('Tag', { exact: true });
    // The tags GET /spans/filters knows are offered while typing.
    await page.locator('#tag-options option[value="vip"]').waitFor({ state: 'attached' });
    await tag.fill('vip');
    await tag.press('Enter');
    await page.waitForURL(/\/traces\?tag=vip$/);
    await expect.poll(() => traceRows()).toEqual(['trace-tagged']);
    // Its tags as badges under its name.
    const name = page.locator('table.traces tbody tr').filter({ hasText: 'trace-tagged' }).getByRole('cell').nth(1);
    expect(await name.locator('.badge').allTextContents()).toEqual(['refund-flow', 'vip']);

    const metadata = page.getByLabel('Metadata (key=value)');
    await metadata.fill('seats=12');
    await metadata.press('Enter');
    await page.waitForURL(/\/traces\?tag=vip&metadata=seats%3D12$/);
    await expect.poll(() => traceRows()).toEqual(['trace-tagged']);

    // The link reproduces the view: the fields hold the filters and the list is the same.
    await page.reload();
    await expect.poll(() => traceRows()).toEqual(['trace-tagged']);
    expect(await tag.inputValue()).toBe('vip');
    expect(await metadata.inputValue()).toBe('seats=12');

    // A value the trace does not hold matches nothing.
    await metadata.fill('seats=13');
    await metadata.press('Enter');
    await page.getByText('No trace matches these filters.').waitFor();
    await page.goBack();
    await page.waitForURL(/metadata=seats%3D12$/);

    // The trace's page shows its tags and its metadata, each a link to the traces that match it.
    await page.getByRole('link', { name: 'refund order' }).click();
    await page.waitForURL(/\/traces\/trace-tagged$/);
    const fact = (label: string) =>
      page
        .locator('dl.facts > div')
        .filter({ has: page.getByText(label, { exact: true }) })
        .getByRole('link');
    await expect.poll(() => fact('Tags').allTextContents()).toEqual(['refund-flow', 'vip']);
    // The root span's metadata first, then the other spans'; numbers as text.
    expect(await fact('Metadata').allTextContents()).toEqual(['plan=enterprise', 'seats=12', 'region=eu-west']);
    // A key holding "=" cannot be filtered by (key=value splits at the first "="): shown, not linked.
    await page.locator('dl.facts').getByText('a=b=c', { exact: true }).waitFor();
    expect(await page.locator('dl.facts').getByRole('link', { name: /a=b=c/ }).count()).toBe(0);
    // The same badges as the list's: one check covers both.
    await expectAccessible(page, 'a trace with tags and metadata');
    await page.getByRole('link', { name: 'Traces with metadata region=eu-west' }).click();
    await page.waitForURL(/\/traces\?metadata=region%3Deu-west$/);
    await expect.poll(() => traceRows()).toEqual(['trace-tagged']);
    expect(await metadata.inputValue()).toBe('region=eu-west');
  });
});

describe('sessions', () => {
  beforeEach(() => {
    pageErrors = [];
  });
  afterEach(() => {
    expect(pageErrors, 'errors in the browser console').toEqual([]);
  });

  it('lists sessions with their figures, filters them by user, and pages them by cursor', async () => {
    await page.goto('/sessions?limit=10');
    await page.locator('table.sessions[aria-busy="false"]').waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: tenant.sessionId, exact: true }) });
    // Agent, user, first/last seen, traces, errors, tokens, cost, duration.
    await expect
      .poll(() => row.getByRole('cell').allTextContents())
      .toEqual([
        tenant.sessionId,
        'support-bot',
        SESSION_USER,
        expect.any(String),
        expect.any(String),
        '4',
        '1',
        expect.stringMatching(/^[\d,]+$/),
        expect.stringMatching(/^\$/),
        expect.stringMatching(/min/),
      ]);
    await page.getByTestId('page-position').filter({ hasText: '6 sessions' }).waitFor();
    await expectAccessible(page, 'the sessions list');

    await page.getByLabel('User id').fill(SESSION_USER);
    await page.getByLabel('User id').press('Enter');
    await page.waitForURL(/userId=customer-311/);
    await expect.poll(() => page.locator('table.sessions tbody tr').count()).toBe(1);

    await page.goto('/sessions?limit=5');
    await page.locator('table.sessions[aria-busy="false"]').waitFor();
    const first = await page.locator('table.sessions tbody tr td:first-child').allTextContents();
    expect(first).toHaveLength(5);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByTestId('page-position').filter({ hasText: 'Page 2' }).waitFor();
    await expect.poll(() => page.locator('table.sessions tbody tr td:first-child').allTextContents()).toHaveLength(1);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => page.locator('table.sessions tbody tr td:first-child').allTextContents()).toEqual(first);
  });

  it('shows a session as a conversation, its turns in order, each linking to its trace and back', async () => {
    await page.goto('/sessions');
    await page.getByRole('link', { name: tenant.sessionId, exact: true }).click();
    await page.waitForURL(new RegExp(`/sessions/${tenant.sessionId}$`));
    await page.getByTestId('session-figures').getByText(SESSION_USER).waitFor();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    const turns = conversation.locator('li.turn');
    await expect.poll(() => turns.count()).toBe(4);
    // Oldest first: what the customer asked, and what the agent answered, turn by turn.
    for (const [i, { ask, answer }] of SESSION_TURNS.entries()) {
      await turns.nth(i).locator('.message-user').getByText(ask).waitFor();
      await turns.nth(i).locator('.message-assistant').getByText(answer).waitFor();
    }
    await turns.nth(2).getByText('Failed: Timeout').waitFor();
    await expectAccessible(page, 'a session');

    await turns.nth(2).getByRole('link', { name: 'answer ticket' }).click();
    await page.waitForURL(/\/traces\/trace-01$/);
    await page.getByRole('link', { name: tenant.sessionId }).click();
    await page.waitForURL(new RegExp(`/sessions/${tenant.sessionId}$`));
    await expect.poll(() => turns.count()).toBe(4);
    expect(await page.getByTestId('session-recount').count(), 'no recount queued').toBe(0);
  });

  it("says when a large session's figures are recounted, says a late recount is late, and reads the session again when one is due", async () => {
    // What a worker notes when it queues a large session's refresh; the refresh then takes it off.
    const sessions = sessionsRepository(createDb(process.env['TABLE_NAME']!));
    const notice = page.getByTestId('session-recount');
    const noted = async (dueAtMs: number, check: () => Promise<void>) => {
      try {
        await sessions.noteRefreshQueued(tenant.tenantId, [{ sessionId: tenant.sessionId, dueAtMs }]);
        await check();
      } finally {
        await sessions.refreshQueued(tenant.tenantId, tenant.sessionId, dueAtMs);
      }
    };

    await noted(Date.now() + 600_000, async () => {
      await page.goto(`/sessions/${tenant.sessionId}`);
      await notice
        .getByText(/^The figures are recounted at .+: the traces stored since the last count \(usually the conversation's last ones\) are not in them yet\.$/)
        .waitFor();
      // Its traces' total is the figures' count, which may be short until the recount.
      await page
        .getByText(/\bat least \d+ traces\b/)
        .first()
        .waitFor();
      await expectAccessible(page, 'a session waiting for its recount');
    });
    await noted(Date.now() - 60_000, async () => {
      await page.reload();
      await notice
        .getByText(/^A recount was due at .+ and may not have run yet: the traces stored since the last count may not be in the figures\.$/)
        .waitFor();
    });
    await page.reload();
    await page.getByTestId('session-figures').getByText(SESSION_USER).waitFor();
    expect(await notice.count(), 'no recount queued').toBe(0);
    expect(await page.getByText(/\bat least \d+ traces\b/).count(), 'an exact total').toBe(0);

    // Due in a moment: the page reads the session again then, and the line goes once the recount has run.
    const dueAtMs = Date.now() + 5_000;
    await noted(dueAtMs, async () => {
      await page.reload();
      await notice.waitFor();
    });
    await expect.poll(() => notice.count(), { timeout: 40_000 }).toBe(0);
  });
});

describe('experiments', () => {
  it("are created with each variant's config, and show their agent (or that it was deleted) and the configs", async () => {
    const agents = (await h.service.api('GET', '/agents?limit=100', { apiKey: tenant.apiKey })).body.data as Array<{ id: string; name: string }>;
    const agent = agents.find((a) => a.name === 'support-bot')!;
    await page.goto('/experiments');
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Cheaper model');
    await page.getByLabel('Agent').selectOption(agent.id);
    await page.getByLabel('Config 2 (JSON object, optional)').fill('{"model": "gpt-4o-mini"');
    await page.getByRole('alert').filter({ hasText: 'Write a JSON object' }).waitFor();
    await page.getByRole('button', { name: 'Create experiment' }).click();
    // Nothing is sent while a config is not an object.
    expect(page.url()).toMatch(/\/experiments$/);
    await page.getByLabel('Config 2 (JSON object, optional)').fill('{"model": "gpt-4o-mini"}');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { level: 1, name: 'Cheaper model' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    const created = (await h.service.api('GET', `/experiments/${id}`, { apiKey: tenant.apiKey })).body.data;
    expect(created.variants.map((v: { config: unknown }) => v.config)).toEqual([{}, { model: 'gpt-4o-mini' }]);
    expect(await page.getByRole('link', { name: 'support-bot', exact: true }).getAttribute('href')).toBe(`/agents/${agent.id}`);
    await page.getByRole('cell', { name: '{"model":"gpt-4o-mini"}' }).waitFor();

    // An experiment of an agent deleted since says so.
    const gone = (await h.service.api('POST', '/agents', { apiKey: tenant.apiKey, body: { name: 'short-lived-bot', description: '' } })).body.data;
    const orphan = (
      await h.service.api('POST', '/experiments', {
        apiKey: tenant.apiKey,
        body: {
          name: 'Orphaned',
          agentId: gone.id,
          primaryMetric: 'successRate',
          variants: [
            { key: 'a', weight: 50 },
            { key: 'b', weight: 50 },
          ],
        },
      })
    ).body.data;
    expect((await h.service.api('DELETE', `/agents/${gone.id}`, { apiKey: tenant.apiKey })).status).toBe(200);
    await page.goto(`/experiments/${orphan.id}`);
    await page.getByText('deleted', { exact: true }).waitFor();
  });
});

describe("the API's errors", () => {
  it("are shown with the envelope's message next to the form that caused them", async () => {
    await page.goto('/experiments');
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Unbalanced');
    await page.getByLabel('Weight 2').fill('20');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('alert').filter({ hasText: 'variants: weights must sum to 100 (they sum to 70)' }).waitFor();
  });

  it("a missing or foreign id is the API's 404 message", async () => {
    await page.goto('/traces/no-such-trace');
    await page
      .getByRole('alert')
      .filter({ hasText: /not found/i })
      .waitFor();
  });
});

describe('settings', () => {
  it('shows a new key once, with a copy button, and lists it by prefix only', async () => {
    await page.goto('/settings');
    const activeKeys = async () => Number(/(\d+) active keys/.exec((await page.getByText(/\d+ active keys/).textContent())!)![1]);
    await page.getByText(/\d+ active keys/).waitFor();
    const before = await activeKeys();
    await page.getByLabel('Key name').fill('ci runner');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    // The plan's summary counts it at once; its buttons name it by its prefix too.
    await expect.poll(activeKeys).toBe(before + 1);
    // The prefix shown is `aos_live_` and the key id's first four characters.
    await page.getByRole('button', { name: `Revoke ci runner (${key.slice(0, 13)}…${key.slice(-4)})`, exact: true }).waitFor();
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

describe('the browser', () => {
  it('may report a language tag Intl refuses: the pages with charts still draw', async () => {
    // A sign-in of its own: another context sending the shared page's refresh token would end that page's sign-in.
    const login = await h.service.api('POST', '/auth/login', { body: { email: tenant.email, password: SEED_PASSWORD } });
    const refreshToken = /aos_refresh=([^;]+)/.exec(login.headers.getSetCookie().join('\n'))![1]!;
    const context = await h.newContext();
    await signInContext(context, h.origin, { ...tenant, refreshToken });
    const posix = await context.newPage();
    // What Chromium reports when started under LANG=C.UTF-8 without a locale of its own.
    await posix.addInitScript("Object.defineProperty(Navigator.prototype, 'language', { get: () => 'en-US@posix' })");
    const errors: string[] = [];
    posix.on('pageerror', (error) => errors.push(error.message));
    await posix.goto('/');
    await posix.getByRole('heading', { name: 'Overview' }).waitFor();
    await posix.locator('.uplot').first().waitFor();
    expect(errors).toEqual([]);
  });
});

describe("agents' metrics over a range", () => {
  // The seed's research bot ran once, 90 minutes ago; the other bots' runs are all within the hour.
  const requestsOf = (name: string) => page.getByRole('row').filter({ hasText: name }).getByRole('cell').nth(1).textContent();

  it('the agents list counts over the range picked, held in the URL; "All time" is the plan\'s retention', async () => {
    await page.goto('/agents');
    await page.getByRole('link', { name: 'research-bot' }).waitFor();
    await expect.poll(() => requestsOf('research-bot'), { timeout: 30_000 }).toBe('1');
    await page.getByLabel('Time range preset').selectOption('1h');
    await page.waitForURL(/range=1h/);
    await expect.poll(() => requestsOf('research-bot')).toBe('0');
    expect(await requestsOf('support-bot')).not.toBe('0');
    await page.reload();
    await expect.poll(() => requestsOf('research-bot')).toBe('0');
    await page.getByLabel('Time range preset').selectOption('24h');
    await expect.poll(() => requestsOf('research-bot')).toBe('1');
    // The agent's page opens on the same range.
    await page.getByRole('link', { name: 'research-bot' }).click();
    await page.getByText('Requests, last 24 hours').first().waitFor();
    expect(new URL(page.url()).searchParams.get('range')).toBe('24h');
  });

  it("an agent's figures and charts share one range", async () => {
    const agents = (await h.service.api('GET', '/agents?limit=100', { apiKey: tenant.apiKey })).body.data as Array<{ id: string; name: string }>;
    const research = agents.find((a) => a.name === 'research-bot')!;
    await page.goto(`/agents/${research.id}`);
    const requests = page.getByRole('definition').first();
    await page.getByText('Requests, last 24 hours').first().waitFor();
    await expect.poll(() => requests.textContent()).toBe('1');
    await page.getByRole('form', { name: 'Agent metrics range' }).getByRole('combobox').selectOption('1h');
    await page.getByText('Requests, last hour').first().waitFor();
    await expect.poll(() => requests.textContent()).toBe('0');
    expect(new URL(page.url()).searchParams.get('range')).toBe('1h');
  });
});

describe('a deleted agent', () => {
  it('is not shown again from the cache when the browser goes back to its page', async () => {
    const agent = (await h.service.api('POST', '/agents', { apiKey: tenant.apiKey, body: { name: 'doomed-bot' } })).body.data;
    await page.goto(`/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'doomed-bot' }).waitFor();
    await page.getByRole('button', { name: /Delete this agent/ }).click();
    await page.getByLabel(/Type/).fill('doomed-bot');
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.waitForURL(/\/agents$/);
    await page.goBack();
    await page
      .getByRole('alert')
      .filter({ hasText: /not found/i })
      .waitFor();
    expect(await page.getByRole('heading', { name: 'doomed-bot' }).count()).toBe(0);
  });
});

describe('long text without spaces', () => {
  it('wraps inside the window on every page that shows it, rather than widening the page', async () => {
    const registered = await h.service.api('POST', '/auth/register', {
      body: { email: newEmail('long'), password: 'a long enough password', firstName: 'Ada', lastName: 'L' },
    });
    const token = registered.body.data.accessToken as string;
    const refreshToken = /aos_refresh=([^;]+)/.exec(registered.headers.getSetCookie().join('\n'))![1]!;
    const apiKey = (await h.service.api('POST', '/keys', { token, body: { name: 'sdk' } })).body.data.key as string;
    const traceId = `t${'1'.repeat(127)}`;
    const at = Date.now() - 5 * MINUTE;
    const root = {
      traceId,
      spanId: 'root',
      name: `n${'a'.repeat(300)}`,
      kind: 'agent',
      agentName: `L${'o'.repeat(198)}g`,
      startTime: at,
      endTime: at + 1000,
      status: 'error',
      errorType: `E${'r'.repeat(250)}`,
      model: `m${'o'.repeat(250)}`,
      sessionId: `s${'e'.repeat(250)}`,
      userId: `u${'s'.repeat(250)}`,
      tags: ['x'.repeat(200)],
      metadata: { plan: 'v'.repeat(250) },
      input: 'i'.repeat(2000),
    };
    expect((await h.service.api('POST', '/spans', { apiKey, body: { spans: [root] } })).status).toBe(202);
    await h.service.drainQueues();
    const agentId = (await h.service.api('GET', '/agents', { apiKey })).body.data[0].id as string;
    const context = await h.newContext();
    await context.addCookies([{ name: 'aos_refresh', value: refreshToken, url: `${h.origin}/api/auth`, httpOnly: true, secure: true, sameSite: 'Strict' }]);
    const wide = await context.newPage();
    for (const path of [
      '/',
      '/traces',
      `/traces/${traceId}`,
      '/sessions',
      `/sessions/${encodeURIComponent(root.sessionId)}`,
      '/agents',
      `/agents/${agentId}`,
      '/alerts',
    ]) {
      await wide.goto(path);
      await wide.getByRole('heading', { level: 1 }).first().waitFor();
      await wide.waitForLoadState('networkidle');
      const widths = (await wide.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as number[];
      const culprits = await wide.evaluate(
        `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().width > window.innerWidth - 100 && ![...e.children].some((c) => c.getBoundingClientRect().width > window.innerWidth - 100)).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().width) + ': ' + (e.textContent ?? '').slice(0, 20)).join(' | ')`,
      );
      expect(widths[0], `${path} is ${widths[0]} px wide in a window of ${widths[1]}: ${culprits}`).toBeLessThanOrEqual(widths[1]!);
    }
    // On a phone's width the top bar wraps: signing out stays in reach.
    await wide.setViewportSize({ width: 390, height: 844 });
    await wide.goto('/settings');
    const signOut = await wide.getByRole('button', { name: 'Sign out' }).boundingBox();
    expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(390);
  });
});

describe('traces that have not finished', () => {
  it('are marked in progress with their last activity, or closed without a finished root, in the list and on their page', async () => {
    // Runs whose root span never came: two still in flight (one with a failed tool), one the service has closed.
    const at = Date.now() - 3 * MINUTE;
    const lastEnd = new Date(at + MINUTE).toISOString();
    const spans = ['run-in-flight', 'run-failing', 'run-lost'].map((traceId) => ({
      traceId,
      spanId: 'fetch',
      parentSpanId: 'root',
      name: 'fetch page',
      kind: 'tool',
      agentName: 'research-bot',
      startTime: at,
      endTime: lastEnd,
      status: traceId === 'run-failing' ? 'error' : 'ok',
    }));
    expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans } })).status).toBe(202);
    await h.service.drainQueues();
    // The closing job closes a trace no span reached for an hour; the store's own close stands in for that hour.
    const traces = tracesRepository(createDb(process.env['TABLE_NAME']!));
    const lost = (await traces.summaries(tenant.tenantId, ['run-lost'])).get('run-lost')!;
    const closedAt = new Date();
    expect(await traces.closeSummary(tenant.tenantId, lost, closedAt.getTime())).toBeDefined();
    const clock = (iso: string) => iso.slice(11, 19);

    await page.goto('/traces');
    await expect.poll(async () => await traceRows()).toEqual(expect.arrayContaining(['run-in-flight', 'run-lost']));
    const row = (traceId: string) => page.locator('table.traces tbody tr').filter({ hasText: traceId });
    await row('run-in-flight')
      .getByText(new RegExp(`^in progress last activity .*${clock(lastEnd)}$`))
      .waitFor();
    await row('run-lost')
      .getByText(new RegExp(`^closed without a finished root span at .*${clock(closedAt.toISOString())}$`))
      .waitFor();
    expect(await row('run-lost').getByText('in progress').count()).toBe(0);
    // Its status is its root's, not there yet: no "ok" claimed before the end, a failure said at once.
    const badges = async (traceId: string) => await row(traceId).locator('.badge').allTextContents();
    expect(await badges('run-in-flight')).toEqual(['in progress']);
    expect(await badges('run-failing')).toEqual(['error', 'in progress']);
    expect(await badges('run-lost')).toEqual(['ok', 'closed']);
    await expectAccessible(page, 'the traces page with a trace in progress and a closed one');

    await page.goto('/traces/run-in-flight');
    await page.getByText(new RegExp(`^in progress last activity .*${clock(lastEnd)}$`)).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).locator('..').locator('.badge').allTextContents()).toEqual(['in progress']);
    await page.goto('/traces/run-lost');
    await page.getByText(new RegExp(`^closed without a finished root span at .*${clock(closedAt.toISOString())}$`)).waitFor();

    // The agent's page marks them too, among its recent traces.
    const agents = (await h.service.api('GET', '/agents?limit=100', { apiKey: tenant.apiKey })).body.data as Array<{ id: string; name: string }>;
    await page.goto(`/agents/${agents.find((a) => a.name === 'research-bot')!.id}`);
    const recent = page.getByRole('region', { name: 'Recent traces' });
    await expect.poll(async () => await recent.getByText(new RegExp(`^in progress last activity .*${clock(lastEnd)}$`)).count()).toBe(2);
    await recent.getByText(/^closed without a finished root span at/).waitFor();
  });
});
