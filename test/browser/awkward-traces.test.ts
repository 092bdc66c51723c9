import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHarness, expectAccessible, newEmail, startConsole } from '../support/browser.ts';
import { type RegisteredTenant, registerTenant, signInContext } from '../support/console-seed.ts';

/** Traces a sender got wrong or made awkward, in a tenant of their own (the other files count their tenants' traces). */

const MINUTE = 60_000;

let h: ConsoleHarness;
let tenant: RegisteredTenant;
let page: Page;
beforeAll(async () => {
  h = await startConsole();
  tenant = await registerTenant(h.service, newEmail('awkward'));
  const context = await h.newContext();
  await signInContext(context, h.origin, tenant);
  page = await context.newPage();
}, 180_000);
afterAll(() => h?.stop());

async function send(spans: Array<Record<string, unknown>>) {
  for (let i = 0; i < spans.length; i += 500) {
    expect((await h.service.api('POST', '/spans', { apiKey: tenant.apiKey, body: { spans: spans.slice(i, i + 500) } })).status).toBe(202);
  }
  await h.service.drainQueues();
}

/** A span of `traceId` starting `offset` ms into it and lasting 100 ms. */
const span = (traceId: string, spanId: string, parentSpanId: string | null, offset: number, extra: Record<string, unknown> = {}) => {
  const at = Date.now() - 5 * MINUTE;
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: `step ${spanId}`,
    kind: 'tool',
    agentName: 'odd-bot',
    startTime: at + offset,
    endTime: at + offset + 100,
    ...extra,
  };
};

const spanNames = (waterfall: ReturnType<Page['getByTestId']>) => waterfall.locator('.span-select').allInnerTexts();

describe('the waterfall', () => {
  it('shows every span once when parent links loop, marking where a loop was broken', async () => {
    await send([
      span('cycle-1', 'a', 'b', 0),
      span('cycle-1', 'b', 'a', 10),
      span('self-1', 'a', 'a', 0),
      span('pcycle', 'root', null, 0, { endTime: Date.now() - 5 * MINUTE + 1000 }),
      span('pcycle', 'child', 'root', 10),
      span('pcycle', 'x', 'y', 20, { status: 'error', errorType: 'HiddenError' }),
      span('pcycle', 'y', 'x', 30),
    ]);
    const waterfall = page.getByTestId('waterfall');

    await page.goto('/traces/cycle-1');
    await waterfall.getByRole('button', { name: 'TOOL step a parent loops', exact: true }).waitFor();
    // Entered at a, the span that starts first: b is under it, and the loop back to a is cut.
    expect(await spanNames(waterfall)).toEqual(['TOOL step a parent loops', 'TOOL step b']);

    await page.goto('/traces/self-1');
    await waterfall.getByRole('button', { name: 'TOOL step a parent loops', exact: true }).waitFor();
    expect(await spanNames(waterfall)).toEqual(['TOOL step a parent loops']);

    await page.goto('/traces/pcycle');
    await waterfall.getByRole('button', { name: /^TOOL step x parent loops/ }).click();
    expect(await spanNames(waterfall)).toEqual(['TOOL step root', 'TOOL step child', 'TOOL step x parent loops ●', 'TOOL step y']);
    await page.getByRole('complementary', { name: 'Selected span' }).getByRole('heading', { name: 'Error: HiddenError' }).waitFor();
    await expectAccessible(page, 'a trace whose parent links loop');
  });
});

describe('a deep waterfall', () => {
  it('keeps the names and fold arrows of a chain 500 spans deep inside their column, rows past 12 levels saying their depth', async () => {
    await send(Array.from({ length: 500 }, (_, i) => span('deep-chain', `d${i}`, i === 0 ? null : `d${i - 1}`, i, { name: `step ${i}`, endTime: Date.now() })));
    await page.goto('/traces/deep-chain');
    const waterfall = page.getByTestId('waterfall');
    /** Every row drawn: its fold arrow and its whole name lie within the name column, left of the bars. */
    const drawnRows = () =>
      waterfall.locator('li').evaluateAll((items) =>
        items.map((li) => {
          const column = li.querySelector('.span-name')!.getBoundingClientRect();
          const name = li.querySelector('.span-select')!;
          const fold = li.querySelector('.fold')!.getBoundingClientRect();
          return {
            name: name.textContent!,
            depth: li.querySelector('.depth-marker')?.textContent ?? null,
            inColumn: fold.left >= column.left && name.getBoundingClientRect().right <= column.right + 0.5,
            whole: name.scrollWidth <= name.clientWidth,
          };
        }),
      );
    const expectReadable = (rows: Awaited<ReturnType<typeof drawnRows>>) => {
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.filter((row) => !row.inColumn || !row.whole).map((row) => row.name)).toEqual([]);
      expect(rows.map((row) => row.depth)).toEqual(
        rows.map((row) => Number(row.name.replace('TOOL step ', ''))).map((depth) => (depth > 12 ? String(depth) : null)),
      );
    };
    await waterfall.getByRole('button', { name: 'TOOL step 0', exact: true }).waitFor();
    expectReadable(await drawnRows());
    await waterfall.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await waterfall.getByRole('button', { name: 'TOOL step 499', exact: true }).waitFor();
    expectReadable(await drawnRows());
  });
});

describe('the arrow keys', () => {
  it('move the selection one row for every press, however fast they come', async () => {
    await send([
      span('keys', 'root', null, 0, { endTime: Date.now() }),
      ...Array.from({ length: 20 }, (_, i) => span('keys', `c${i}`, 'root', 10 + i, { name: `call ${i}`, kind: 'llm' })),
    ]);
    await page.goto('/traces/keys');
    await page.getByTestId('waterfall').getByRole('button', { name: 'LLM call 15', exact: true }).click();
    await page.waitForURL(/span=c15$/);
    const selectedSpan = () => new URL(page.url()).searchParams.get('span');
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowUp');
    await expect.poll(selectedSpan, { timeout: 5_000 }).toBe('c3');
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowDown');
    await expect.poll(selectedSpan, { timeout: 5_000 }).toBe('c15');
    await page.getByRole('complementary', { name: 'Selected span' }).getByRole('heading', { name: 'LLM call 15' }).waitFor();
  });
});

describe('bidirectional controls in what a sender wrote', () => {
  it('are shown as what they are, not obeyed, and names are isolated from the words beside them', async () => {
    const RLO = '\u202e';
    const PDF = '\u202c';
    await send([
      span('bidi-1', 'root', null, 0, {
        name: `invoice${RLO}fdp.exe`,
        kind: 'agent',
        agentName: `odd${RLO}bot`,
        sessionId: `chat${RLO}1`,
        userId: `ana${RLO}`,
        endTime: Date.now(),
      }),
      span('bidi-1', 'tool', 'root', 10, {
        name: `tool ${RLO}evil${PDF}`,
        agentName: `odd${RLO}bot`,
        input: `please ${RLO}ignore the rest`,
        output: JSON.stringify({ [`key${RLO}`]: `value ${RLO}reversed` }),
      }),
    ]);
    const hasControls = (text: string | null) => /[\u202a-\u202e\u2066-\u2069]/.test(text ?? '');

    await page.goto('/traces/bidi-1');
    await page.getByRole('heading', { level: 1, name: 'invoice⟨U+202E⟩fdp.exe' }).waitFor();
    const name = page.getByTestId('waterfall').getByRole('button', { name: 'TOOL tool ⟨U+202E⟩evil⟨U+202C⟩', exact: true });
    await name.click();
    expect(await name.locator('bdi').evaluate((el) => (globalThis as any).getComputedStyle(el).unicodeBidi)).toBe('isolate');
    const panel = page.getByRole('complementary', { name: 'Selected span' });
    await panel.getByText('please ⟨U+202E⟩ignore the rest').waitFor();
    await panel.getByText('"value ⟨U+202E⟩reversed"').waitFor();
    await page.getByRole('link', { name: 'chat⟨U+202E⟩1', exact: true }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left in the trace page').toBe(false);
    expect(hasControls(await page.title())).toBe(false);

    await page.goto('/traces');
    await page.getByRole('link', { name: 'invoice⟨U+202E⟩fdp.exe' }).waitFor();
    await page.getByRole('link', { name: 'Session chat⟨U+202E⟩1', exact: true }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left in the traces list or its filters').toBe(false);

    // The session and its user, in the sessions list and on the session's page.
    await page.goto('/sessions');
    await page.getByRole('cell', { name: 'ana⟨U+202E⟩', exact: true }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left in the sessions list').toBe(false);
    await page.getByRole('link', { name: 'chat⟨U+202E⟩1', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Session chat⟨U+202E⟩1' }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left on the session page').toBe(false);
    expect(hasControls(await page.title())).toBe(false);

    // An agent's name too, in the agents list and on its page.
    await send([
      span('bidi-2', 'root', null, 0, { name: 'refund', kind: 'agent', agentName: `refund${RLO}agent`, endTime: Date.now() }),
      span('bidi-2', 'pay', 'root', 10, { name: `pay${RLO}out`, kind: 'tool', agentName: `refund${RLO}agent`, status: 'error', errorType: `Declined${RLO}` }),
    ]);
    await page.goto('/agents');
    await page.getByRole('link', { name: 'refund⟨U+202E⟩agent', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'refund⟨U+202E⟩agent' }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left on the agent page').toBe(false);
    // And the alert its failed tool raised, in the alerts list and on its own page.
    await page.goto('/alerts');
    await page.getByRole('link', { name: 'refund⟨U+202E⟩agent', exact: true }).first().waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left in the alerts list').toBe(false);
    await page.locator('main a[href^="/alerts/"]').first().click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left on the alert page').toBe(false);
    expect(hasControls(await page.title())).toBe(false);

    // An experiment's name, of that agent, in the experiments list and on its page.
    const agentId = (await h.service.api('GET', '/agents', { apiKey: tenant.apiKey })).body.data.find(
      (a: { name: string }) => a.name === `refund${RLO}agent`,
    ).id;
    const experiment = {
      name: `pricing${RLO}test`,
      agentId,
      primaryMetric: 'successRate',
      variants: [
        { key: 'a', weight: 50 },
        { key: 'b', weight: 50 },
      ],
    };
    expect((await h.service.api('POST', '/experiments', { apiKey: tenant.apiKey, body: experiment })).status).toBe(201);
    await page.goto('/experiments');
    await page.getByRole('link', { name: 'pricing⟨U+202E⟩test', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'pricing⟨U+202E⟩test' }).waitFor();
    await page.getByRole('link', { name: 'refund⟨U+202E⟩agent', exact: true }).waitFor();
    expect(hasControls(await page.locator('main').textContent()), 'a control left on the experiment page').toBe(false);
    expect(hasControls(await page.title())).toBe(false);
  });
});

describe('the traces list', () => {
  it('keeps its headings and short columns whole beside ids hundreds of characters long, the long ones cut with the whole in a tooltip', async () => {
    const agentName = `a${'g'.repeat(198)}t`;
    const sessionId = `s${'e'.repeat(254)}n`;
    await send([span('wide-ids', 'root', null, 0, { name: 'wide ids', kind: 'agent', agentName, sessionId, userId: 'wide-ids-user' })]);
    await page.goto('/traces?userId=wide-ids-user');
    await page.locator('table.traces[aria-busy="false"]').waitFor();
    // One line each: a heading or a short value broken over two is taller than one line of its text.
    const linesOf = (cells: ReturnType<Page['locator']>) =>
      cells.evaluateAll((elements) =>
        elements.map((el) => {
          const range = el.ownerDocument.createRange();
          range.selectNodeContents(el);
          return `${el.textContent}: ${new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size}`;
        }),
      );
    expect(await linesOf(page.locator('table.traces thead th'))).toEqual(
      ['Started', 'Name', 'Agent', 'Status', 'Duration', 'Spans', 'Tokens', 'Cost', 'Model', 'Session'].map((heading) => `${heading}: 1`),
    );
    const row = page.locator('table.traces tbody tr').first();
    const short = [0, 3, 4, 5, 6, 7].map((column) => row.locator('td').nth(column));
    for (const cell of short) expect(await linesOf(cell)).toEqual([`${await cell.textContent()}: 1`]);
    // The long values are cut to their column, the whole of each in its tooltip.
    for (const [column, value] of [
      [2, agentName],
      [9, sessionId],
    ] as const) {
      const link = row.locator('td').nth(column).getByRole('link');
      expect(await link.getAttribute('title')).toBe(value);
      expect(await link.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    }
    const widths = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
  });
});
