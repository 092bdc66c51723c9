import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleHarness, expectAccessible, newEmail, registerInBrowser, startConsole } from '../support/browser.ts';

let h: ConsoleHarness;
beforeAll(async () => {
  h = await startConsole();
}, 400_000);
afterAll(() => h?.stop());

/** An agent run whose tool call fails: it raises an `error` alert. */
function failingRun(traceId: string, at: number) {
  return {
    spans: [
      {
        traceId,
        spanId: 'root',
        name: 'answer ticket',
        kind: 'agent',
        agentName: 'support-bot',
        sessionId: 'chat-42',
        status: 'error',
        statusMessage: 'order lookup failed',
        startTime: at,
        endTime: at + 3200,
        input: 'Where is my order?',
        output: 'Sorry, I could not look it up.',
      },
      {
        traceId,
        spanId: 'llm',
        parentSpanId: 'root',
        name: 'chat',
        kind: 'llm',
        agentName: 'support-bot',
        model: 'gpt-4o-mini',
        inputTokens: 1200,
        outputTokens: 150,
        startTime: at + 100,
        endTime: at + 1900,
        input: JSON.stringify([
          { role: 'system', content: 'You are a support agent.' },
          { role: 'user', content: 'Where is my order?' },
        ]),
        output: JSON.stringify([{ role: 'assistant', content: 'Let me look that up.' }]),
      },
      {
        traceId,
        spanId: 'tool',
        parentSpanId: 'root',
        name: 'lookup order',
        kind: 'tool',
        toolName: 'orders.lookup',
        agentName: 'support-bot',
        status: 'error',
        errorType: 'Timeout',
        statusMessage: 'upstream timed out',
        startTime: at + 2000,
        endTime: at + 3000,
      },
    ],
  };
}

it('walks the story: register, make a key, send a trace, find it, open its waterfall, acknowledge its alert, change the alert configuration, follow the e-mail link', async () => {
  const page = await (await h.newContext()).newPage();
  const email = newEmail('story');

  // Register: a new tenant lands on the first-run page and makes a key there.
  await registerInBrowser(page, email);
  await page.getByRole('button', { name: 'Create an API key' }).click();
  const apiKey = (await page.getByTestId('new-key').textContent())!;
  expect(apiKey).toMatch(/^aos_live_/);
  expect(await page.locator('pre.code').first().textContent()).toContain(`x-api-key: ${apiKey}`);
  await expectAccessible(page, 'the first-run page');

  // Send a trace through the API, as an agent would; the page moves on by itself.
  const sent = await h.service.api('POST', '/spans', { apiKey, body: failingRun('story-trace-1', Date.now() - 60_000) });
  expect(sent.status).toBe(202);
  await page.getByText('Your first trace arrived.').waitFor({ timeout: 20_000 });
  await h.service.drainQueues();
  await expectAccessible(page, 'the overview');

  // Find it with a filter: the query goes to the URL.
  await page.getByRole('link', { name: 'Traces', exact: true }).click();
  await page.getByLabel('Status').selectOption('error');
  await page.waitForURL(/\/traces\?status=error$/);
  const row = page.getByRole('link', { name: 'answer ticket' });
  await page.locator('table.traces[aria-busy="false"]').waitFor();
  await row.waitFor();
  await expectAccessible(page, 'the traces page');
  await page.getByLabel('Status').selectOption('ok');
  await page.getByText('No trace matches these filters.').waitFor();
  await page.goBack();
  await page.waitForURL(/\/traces\?status=error$/);
  await row.click();

  // Its waterfall: the failing tool call shows its error in the side panel, the LLM call its conversation.
  await page.waitForURL(/\/traces\/story-trace-1/);
  const waterfall = page.getByTestId('waterfall');
  await waterfall.getByRole('button', { name: /lookup order/ }).click();
  const panel = page.getByRole('complementary', { name: 'Selected span' });
  await panel.getByRole('heading', { name: 'Error: Timeout' }).waitFor();
  await panel.getByText('upstream timed out').waitFor();
  await waterfall.getByRole('button', { name: /chat/ }).click();
  await panel.locator('.message-system').getByText('You are a support agent.').waitFor();
  expect(await panel.getByText('gpt-4o-mini').count()).toBeGreaterThan(0);
  await expectAccessible(page, 'the trace page');

  // The alert it raised, acknowledged from its page.
  await page.getByRole('region', { name: 'Alerts' }).getByRole('link').first().click();
  await page.waitForURL(/\/alerts\/[^/]+$/);
  await page.getByRole('button', { name: /^Acknowledge alert/ }).click();
  await page.locator('.page-title .badge', { hasText: 'acknowledged' }).waitFor();
  await expectAccessible(page, 'the alert page');

  // Change the agent's alert configuration: the editor checks as the API does before it saves.
  await page.getByRole('link', { name: 'support-bot' }).click();
  await page.getByRole('heading', { name: 'Alert configuration' }).waitFor();
  await page.getByRole('button', { name: 'Add e-mail address' }).click();
  await page.getByLabel('E-mail address 1').fill('not-an-address');
  await page.getByText('Enter an e-mail address, such as name@example.com.').waitFor();
  expect(await page.getByRole('button', { name: 'Save alert configuration' }).isDisabled()).toBe(true);
  // Each problem is said beside its field, in plain words rather than zod's.
  const duration = await page.getByLabel('Duration (ms)').inputValue();
  const samplingRate = await page.getByLabel('Share of traces judged (0–1)').inputValue();
  await page.getByLabel('Duration (ms)').fill('');
  await page.getByLabel('Share of traces judged (0–1)').fill('2');
  await page.getByLabel('error cooldown minutes').fill('20000');
  await page.getByText('Fix the 4 fields marked above to save.').waitFor();
  const problemOf = (label: string) => page.locator(`[id="problem-${label}"]`).textContent();
  expect(await problemOf('thresholds.duration')).toBe('Enter a number.');
  expect(await problemOf('llmAnalysis.samplingRate')).toBe('Must be at most 1.');
  expect(await problemOf('alertTypes.error.cooldownMinutes')).toBe('Must be at most 10,080.');
  await expect.poll(() => page.getByText(/Invalid input|expected number/).count()).toBe(0);
  await page.getByLabel('Duration (ms)').fill(duration);
  await page.getByLabel('Share of traces judged (0–1)').fill(samplingRate);
  await page.getByLabel('E-mail address 1').fill(email);
  await page.getByLabel('error cooldown minutes').fill('0');
  await page.getByRole('button', { name: 'Save alert configuration' }).click();
  await page.getByText('Saved.').waitFor();
  await expectAccessible(page, 'the agent page');
  const agent = await h.service.api('GET', '/agents', { apiKey });
  expect(agent.body.data[0].alertConfig.contacts.email).toEqual([{ address: email, enabled: true }]);

  // The next failure e-mails the contact; the e-mail's links open the alert and the trace.
  await h.service.api('POST', '/spans', { apiKey, body: failingRun('story-trace-2', Date.now() - 30_000) });
  await h.service.drainQueues();
  const mail = await h.service.waitForOutbox((m) => m.to === email && m.subject?.startsWith('[') === true, 15_000);
  const alertLink = /(http:\/\/\S+\/alerts\/\S+)/.exec(mail.text)![1]!;
  const traceLink = /(http:\/\/\S+\/traces\/\S+)/.exec(mail.text)![1]!;
  expect(alertLink.startsWith(h.origin)).toBe(true);
  await page.goto(alertLink);
  await page
    .getByRole('heading', { name: /Timeout|failed|error/i })
    .first()
    .waitFor();
  await page.getByRole('link', { name: 'story-trace-2' }).waitFor();
  await page.goto(traceLink);
  await page
    .getByTestId('waterfall')
    .getByRole('button', { name: /lookup order/ })
    .waitFor();
}, 400_000);
