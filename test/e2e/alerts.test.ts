import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
let agentId: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 }) } });
  ({ apiKey } = await service.signUp('owner@example.com'));
  agentId = (await service.api('POST', '/agents', { apiKey, body: { name: 'ops-bot' } })).body.data.id;
});
afterAll(() => service?.stop());

const T0 = Date.now() - 60_000;
let n = 0;
/** A one-span trace of ops-bot; `over` shapes the crossing. */
async function send(over: Record<string, unknown>) {
  const traceId = `trace-${++n}`;
  const span = {
    traceId,
    spanId: 'root',
    name: 'handle',
    kind: 'llm',
    agentName: 'ops-bot',
    model: 'gpt-4o',
    startTime: T0,
    endTime: T0 + 100,
    inputTokens: 10,
    outputTokens: 10,
    cost: 0.001,
    ...over,
  };
  expect((await service.api('POST', '/spans', { apiKey, body: { spans: [span] } })).status).toBe(202);
  await service.drainQueues();
  return traceId;
}
const alerts = async (query = '') => (await service.api('GET', `/spans/alerts${query}`, { apiKey })).body.data as Array<Record<string, any>>;
const contactMail = async () => (await service.readOutbox()).filter((m) => m.to !== 'owner@example.com');

describe('alert configuration', () => {
  it('answers the defaults on the agent, merges partial updates and names invalid fields', async () => {
    const agent = (await service.api('GET', `/agents/${agentId}`, { apiKey })).body.data;
    expect(agent.alertConfig.thresholds).toEqual({ duration: 5000, inputTokens: 100000, outputTokens: 50000, cost: 1, timeout: 30000 });
    expect(agent.alertConfig.llmAnalysis.alertTypes.hallucination).toMatchObject({ enabled: true, threshold: 0.7, cooldownMinutes: 5 });

    const res = await service.api('PUT', `/agents/${agentId}/alerts`, {
      apiKey,
      body: {
        thresholds: { duration: 1000, inputTokens: 500, outputTokens: 100, cost: 0.05, timeout: 10_000 },
        alertTypes: { error: { channels: ['email', 'sms'], severity: 'critical' }, highCost: { enabled: false } },
        contacts: {
          email: [
            { address: 'oncall@example.com', enabled: true },
            { address: 'muted@example.com', enabled: false },
          ],
          sms: [{ phoneNumber: '+14155550100', enabled: true }],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.thresholds).toEqual({ duration: 1000, inputTokens: 500, outputTokens: 100, cost: 0.05, timeout: 10000 });
    const partial = await service.api('PUT', `/agents/${agentId}/alerts`, { apiKey, body: { llmAnalysis: { enabled: true } } });
    expect(partial.body.data).toMatchObject({
      llmAnalysis: { enabled: true },
      thresholds: { duration: 1000 },
      alertTypes: { error: { severity: 'critical' } },
    });

    for (const [body, field] of [
      [{ llmAnalysis: { alertTypes: { stuck: { threshold: 1.5 } } } }, 'llmAnalysis.alertTypes.stuck.threshold'],
      [{ llmAnalysis: { alertTypes: { quality: { severity: 'urgent' } } } }, 'severity'],
      [{ contacts: { email: [{ address: 'nope', enabled: true }] } }, 'contacts.email.0.address'],
      [{ contacts: { sms: [{ phoneNumber: '0155 5550', enabled: true }] } }, 'phoneNumber'],
      [{ thresholds: { cost: -1 } }, 'thresholds.cost'],
      // Values that would make alerts meaningless: every trace a timeout, every call too costly or too long.
      [{ thresholds: { timeout: 0 } }, 'thresholds.timeout'],
      [{ thresholds: { cost: 0 } }, 'thresholds.cost'],
      [{ thresholds: { duration: 0 } }, 'thresholds.duration'],
      [{ thresholds: { inputTokens: 0 } }, 'thresholds.inputTokens'],
      // highDuration could never fire: at or past the timeout a trace is a timeout. Alone, against the stored 10 s timeout, too.
      [{ thresholds: { duration: 20_000, timeout: 10_000 } }, 'thresholds.duration'],
      [{ thresholds: { duration: 20_000 } }, 'thresholds.duration'],
      [{ contacts: { email: [{ address: 'dup@example.com' }, { address: 'DUP@example.com' }] } }, 'contacts.email.1.address'],
      [{ contacts: { sms: [{ phoneNumber: '+14155550100' }, { phoneNumber: '+14155550100' }] } }, 'contacts.sms.1.phoneNumber'],
    ] as const) {
      const bad = await service.api('PUT', `/agents/${agentId}/alerts`, { apiKey, body });
      expect(bad.status, field).toBe(400);
      expect(bad.body.error.message).toContain(field);
    }
    expect((await service.api('GET', `/agents/${agentId}`, { apiKey })).body.data.alertConfig.thresholds).toEqual(res.body.data.thresholds);
    // With the timeout alert off, a long duration threshold is what alerts on slow traces.
    const timeoutOff = { thresholds: { duration: 20_000 }, alertTypes: { timeout: { enabled: false } } };
    expect((await service.api('PUT', `/agents/${agentId}/alerts`, { apiKey, body: timeoutOff })).status).toBe(200);
    const restored = { thresholds: { duration: 1000 }, alertTypes: { timeout: { enabled: true } } };
    expect((await service.api('PUT', `/agents/${agentId}/alerts`, { apiKey, body: restored })).status).toBe(200);
    expect((await service.api('PUT', '/agents/agt_missing/alerts', { apiKey, body: {} })).status).toBe(404);
  });
});

describe('threshold alerts and notifications', () => {
  it('raise one alert per crossed type, none at the threshold, and notify the enabled contacts on each channel', async () => {
    await send({ inputTokens: 500, outputTokens: 100, endTime: T0 + 1000 }); // exactly at every threshold
    expect(await alerts()).toEqual([]);

    const failed = await send({ status: 'error', errorType: 'ValueError', statusMessage: 'bad tool input' });
    await send({ inputTokens: 501 });
    await send({ outputTokens: 101 });
    await send({ cost: 0.5 }); // highCost is disabled
    await send({ endTime: T0 + 1001 });
    const slow = await send({ endTime: T0 + 10_000 });

    const byType = Object.fromEntries((await alerts()).map((a) => [a.type, a]));
    expect(Object.keys(byType).sort()).toEqual(['error', 'highDuration', 'highInputTokens', 'highOutputTokens', 'timeout']);
    expect(byType.error).toMatchObject({
      agentId,
      agentName: 'ops-bot',
      category: 'threshold',
      severity: 'critical',
      status: 'open',
      occurrenceCount: 1,
      traceIds: [failed],
    });
    expect(byType.highInputTokens).toMatchObject({ value: 501, threshold: 500, severity: 'warning' });
    expect(byType.timeout).toMatchObject({ value: 10_000, threshold: 10_000, traceIds: [slow] });

    const mail = await contactMail();
    expect(mail.filter((m) => m.to === 'muted@example.com')).toEqual([]);
    expect(mail.filter((m) => m.channel === 'sms')).toEqual([
      expect.objectContaining({ to: '+14155550100', text: expect.stringMatching(/^\[CRITICAL\] ops-bot error/) }),
    ]);
    const subjects = mail
      .filter((m) => m.channel === 'email')
      .map((m) => m.subject)
      .sort();
    expect(subjects).toHaveLength(5);
    expect(subjects.every((s) => s!.includes('ops-bot'))).toBe(true);
    const errorMail = mail.find((m) => m.subject?.startsWith('[CRITICAL]'));
    expect(errorMail!.text).toContain(`/traces/${failed}`);
  });

  it('counts a recurrence on the open alert and, inside the cooldown, sends nothing more', async () => {
    const before = (await contactMail()).length;
    const again = await send({ status: 'error', errorType: 'ValueError' });
    const [error] = await alerts('?type=error');
    expect(error).toMatchObject({ occurrenceCount: 2, traceIds: [again, expect.any(String)] });
    expect((await contactMail()).length).toBe(before);
  });

  it('moves through acknowledge, reopen and resolve, refusing illegal moves by naming the state', async () => {
    const [error] = await alerts('?type=error');
    const path = `/spans/alerts/${error!.id}`;
    expect((await service.api('PUT', `${path}/reopen`, { apiKey })).body.error.message).toMatch(/is open/);
    const acked = await service.api('PUT', `${path}/acknowledge`, { apiKey });
    expect(acked.body.data).toMatchObject({ status: 'acknowledged', acknowledgedAt: expect.any(String) });
    expect((await service.api('PUT', `${path}/acknowledge`, { apiKey })).status).toBe(400);
    await send({ status: 'error', errorType: 'ValueError' });
    expect((await service.api('GET', path, { apiKey })).body.data).toMatchObject({ status: 'acknowledged', occurrenceCount: 3 });
    expect((await service.api('PUT', `${path}/reopen`, { apiKey })).body.data.status).toBe('open');
    const resolved = await service.api('PUT', `${path}/resolve`, { apiKey });
    expect(resolved.body.data).toMatchObject({ status: 'resolved', resolvedAt: expect.any(String) });
    expect((await service.api('PUT', `${path}/resolve`, { apiKey })).body.error.message).toMatch(/is resolved/);

    await send({ status: 'error', errorType: 'ValueError' });
    const errors = await alerts('?type=error');
    expect(errors.map((a) => a.status).sort()).toEqual(['open', 'resolved']);
    // The resolved one cannot come back while the newer one is active: the refusal names it, to link.
    const newer = errors.find((a) => a.status === 'open')!;
    const refused = await service.api('PUT', `${path}/reopen`, { apiKey });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: `Cannot reopen: a newer error alert of this agent is active (${newer.id}); see it instead`,
      details: { activeAlertId: newer.id },
    });
  });

  it('lists with filters and summarises per agent', async () => {
    expect((await alerts('?status=resolved')).every((a) => a.status === 'resolved')).toBe(true);
    expect((await alerts(`?agentId=${agentId}&severity=warning`)).map((a) => a.type).sort()).toEqual(['highDuration', 'highInputTokens', 'highOutputTokens']);
    const page = await service.api('GET', '/spans/alerts?limit=2', { apiKey });
    expect(page.body.pagination).toMatchObject({ limit: 2, hasMore: true });
    const summary = (await service.api('GET', '/spans/alerts/summary', { apiKey })).body.data;
    expect(summary.agents[0]).toMatchObject({ agentId, agentName: 'ops-bot', total: 6, byType: { error: 2 } });
    expect((await service.api('GET', '/spans/alerts?status=sleeping', { apiKey })).status).toBe(400);
  });

  it("answers 404 for another tenant's alert, exactly as for a missing one", async () => {
    const { token } = await service.signUp('intruder@example.com');
    const [alert] = await alerts();
    const missing = await service.api('GET', '/spans/alerts/alr_missing', { token });
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', '/acknowledge'],
      ['PUT', '/resolve'],
      ['PUT', '/reopen'],
    ] as const) {
      const res = await service.api(method, `/spans/alerts/${alert!.id}${path}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    expect((await service.api('GET', `/spans/alerts/${alert!.id}`, { apiKey })).body.data.status).toBe(alert!.status);
  });
});

describe('the agent an alert is raised on', () => {
  it("is a sub-agent's for a failure inside it that names no agent, as the trace shows the span", async () => {
    const traceId = `trace-${++n}`;
    const base = { traceId, model: 'gpt-4o', startTime: T0, endTime: T0 + 100 };
    const spans = [
      { ...base, spanId: 'root', name: 'plan', kind: 'agent', agentName: 'triage-bot' },
      { ...base, spanId: 'sub', parentSpanId: 'root', name: 'research', kind: 'agent', agentName: 'research-bot' },
      { ...base, spanId: 'call', parentSpanId: 'sub', name: 'search.web', kind: 'tool', status: 'error', errorType: 'ValueError' },
    ];
    expect((await service.api('POST', '/spans', { apiKey, body: { spans } })).status).toBe(202);
    await service.drainQueues();

    const detail = (await service.api('GET', `/spans/traces/${traceId}`, { apiKey })).body.data;
    expect(detail.spans.find((s: { spanId: string }) => s.spanId === 'call')).toMatchObject({ agentName: 'research-bot' });
    const raised = (await alerts()).filter((a) => a.traceIds.includes(traceId));
    expect(raised.map((a) => [a.agentName, a.type])).toEqual([['research-bot', 'error']]);
  });

  it("counts a failure once, on its sub-agent, when it arrives before the sub-agent's span", async () => {
    const traceId = `trace-${++n}`;
    const base = { traceId, model: 'gpt-4o', startTime: T0, endTime: T0 + 100 };
    const first = [
      { ...base, spanId: 'plan', parentSpanId: 'root', name: 'plan', kind: 'llm', agentName: 'triage-bot' },
      { ...base, spanId: 'call', parentSpanId: 'sub', name: 'search.web', kind: 'tool', status: 'error', errorType: 'ValueError' },
    ];
    const then = [
      { ...base, spanId: 'sub', parentSpanId: 'root', name: 'research', kind: 'agent', agentName: 'research-bot' },
      { ...base, spanId: 'root', name: 'plan', kind: 'agent', agentName: 'triage-bot' },
    ];
    for (const spans of [first, then]) {
      expect((await service.api('POST', '/spans', { apiKey, body: { spans } })).status).toBe(202);
      await service.drainQueues();
    }
    const raised = (await alerts()).filter((a) => a.traceIds.includes(traceId));
    expect(raised.map((a) => [a.agentName, a.type])).toEqual([['research-bot', 'error']]);
  });

  it('shows the name the agent has now, after a rename', async () => {
    const [alert] = (await alerts()).filter((a) => a.agentName === 'research-bot');
    expect((await service.api('PUT', `/agents/${alert!.agentId}`, { apiKey, body: { name: 'research-agent' } })).status).toBe(200);
    expect((await alerts(`?agentId=${alert!.agentId}`)).map((a) => a.agentName)).toEqual(['research-agent']);
    expect((await service.api('GET', `/spans/alerts/${alert!.id}`, { apiKey })).body.data.agentName).toBe('research-agent');
    expect((await service.api('PUT', `/spans/alerts/${alert!.id}/acknowledge`, { apiKey })).body.data.agentName).toBe('research-agent');
    const summary = (await service.api('GET', '/spans/alerts/summary', { apiKey })).body.data;
    expect(summary.agents.find((a: { agentId: string }) => a.agentId === alert!.agentId).agentName).toBe('research-agent');
  });

  it('go with their agent when it is deleted, and a new agent of its name starts without them', async () => {
    const [alert] = (await alerts()).filter((a) => a.agentName === 'research-agent');
    expect((await service.api('DELETE', `/agents/${alert!.agentId}`, { apiKey })).status).toBe(200);
    await service.drainQueues();
    expect((await alerts()).filter((a) => a.agentId === alert!.agentId)).toEqual([]);
    expect((await service.api('GET', `/spans/alerts/${alert!.id}`, { apiKey })).status).toBe(404);
    const summary = (await service.api('GET', '/spans/alerts/summary', { apiKey })).body.data;
    expect(summary.agents.map((a: { agentId: string }) => a.agentId)).not.toContain(alert!.agentId);
    const again = (await service.api('POST', '/agents', { apiKey, body: { name: 'research-agent' } })).body.data;
    expect(await alerts(`?agentId=${again.id}`)).toEqual([]);
  });
});
