import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nested } from '../support/fuzz.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Numbers and nesting the store cannot hold are refused with a 400 naming the field; the edges it can hold are kept. */
describe('numbers and nesting in requests', () => {
  let service: TestService;
  let apiKey: string;
  let agentId: string;
  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, standard: 100_000 }) } });
    ({ apiKey } = await service.signUp('numbers@example.com'));
    agentId = (await service.api('POST', '/agents', { apiKey, body: { name: 'numbers-bot' } })).body.data.id;
  });
  afterAll(() => service?.stop());

  const refused = async (method: string, path: string, body: unknown, field: string) => {
    const res = await service.api(method, path, { apiKey, body });
    expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining(field) });
  };

  it('PUT /agents/:id/alerts refuses thresholds and sampling rates out of range, and keeps the smallest it can hold', async () => {
    for (const value of [1e20, 1e308, 2 ** 60, 1e-300]) {
      await refused('PUT', `/agents/${agentId}/alerts`, { thresholds: { duration: value } }, 'thresholds.duration');
      await refused('PUT', `/agents/${agentId}/alerts`, { thresholds: { cost: value } }, 'thresholds.cost');
      await refused('PUT', `/agents/${agentId}/alerts`, { llmAnalysis: { samplingRate: value } }, 'llmAnalysis.samplingRate');
    }
    await refused('PUT', `/agents/${agentId}/alerts`, { thresholds: { inputTokens: 1e13 } }, 'thresholds.inputTokens');
    await refused('PUT', `/agents/${agentId}/alerts`, { thresholds: { outputTokens: 1.5 } }, 'thresholds.outputTokens');
    const kept = await service.api('PUT', `/agents/${agentId}/alerts`, {
      apiKey,
      body: { thresholds: { cost: 1e-130 }, llmAnalysis: { samplingRate: 1e-130 } },
    });
    expect(kept.status).toBe(200);
    const agent = await service.api('GET', `/agents/${agentId}`, { apiKey });
    expect(agent.body.data.alertConfig).toMatchObject({ thresholds: { cost: 1e-130 }, llmAnalysis: { samplingRate: 1e-130 } });
  });

  it('POST /experiments refuses a traffic percentage or a config number out of range, a config nested past what DynamoDB keeps, and a config key it would drop', async () => {
    const experiment = (over: { trafficPercentage?: number; config?: unknown }) => ({
      name: 'ranges',
      primaryMetric: 'successRate',
      variants: [
        { key: 'control', weight: 50, config: over.config ?? {} },
        { key: 'other', weight: 50 },
      ],
      ...(over.trafficPercentage === undefined ? {} : { trafficPercentage: over.trafficPercentage }),
    });
    for (const value of [1e20, 1e308, 2 ** 60, 1e-300]) {
      await refused('POST', '/experiments', experiment({ trafficPercentage: value }), 'trafficPercentage');
      await refused('POST', '/experiments', experiment({ config: { temperature: value } }), 'variants.0.config.temperature');
    }
    await refused('POST', '/experiments', experiment({ config: { prompt: nested(40, 'deep') } }), 'variants.0.config.prompt');
    await refused('POST', '/experiments', experiment({ config: JSON.parse('{"__proto__": {"model": "x"}}') }), 'variants.0.config.__proto__');
    const created = await service.api('POST', '/experiments', {
      apiKey,
      body: experiment({ trafficPercentage: 1e-130, config: { prompt: nested(10, 'fine'), temperature: -0 } }),
    });
    expect(created.status).toBe(201);
  });
});
