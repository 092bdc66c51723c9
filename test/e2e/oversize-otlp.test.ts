import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const megabyte = 'k'.repeat(1024 * 1024);

/** What an exporter may send at any size is cut or refused for good, never answered "retry" (5xx). */
describe('oversize OTLP attributes', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000 }) } });
  });
  afterAll(() => service?.stop());

  const exportOf = (traceId: string, resource: { key: string; value: string }[], span: { key: string; value: string }[] = []) => ({
    resourceSpans: [
      {
        resource: { attributes: resource.map(({ key, value }) => ({ key, value: { stringValue: value } })) },
        scopeSpans: [
          {
            scope: {},
            spans: [
              {
                traceId,
                spanId: hex(8),
                name: 'invoke_agent',
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000001000000000',
                attributes: span.map(({ key, value }) => ({ key, value: { stringValue: value } })),
              },
            ],
          },
        ],
      },
    ],
  });

  it('keeps a span whose resource has a 1 MB attribute key, the key cut', async () => {
    const { apiKey } = await service.signUp('oversize-key@example.com');
    const traceId = hex(16);
    const res = await service.api('POST', '/v1/traces', {
      apiKey,
      body: exportOf(traceId, [
        { key: 'service.name', value: 'big-bot' },
        { key: megabyte, value: 'v' },
      ]),
    });
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess ?? {}).not.toHaveProperty('rejectedSpans', expect.stringMatching(/[1-9]/));
    await service.drainQueues();
    const stored = await service.api('GET', `/spans/traces/${traceId}`, { apiKey });
    expect(stored.status).toBe(200);
    expect(Object.keys(stored.body.data.spans[0].attributes).every((k: string) => k.length < 400)).toBe(true);
  });

  it('keeps a span whose agent name and attribute values are 1 MB, cut', async () => {
    const { apiKey } = await service.signUp('oversize-value@example.com');
    const traceId = hex(16);
    const res = await service.api('POST', '/v1/traces', {
      apiKey,
      body: exportOf(
        traceId,
        [{ key: 'service.name', value: megabyte }],
        [
          { key: 'gen_ai.agent.name', value: `agent-${megabyte}` },
          { key: 'gen_ai.request.model', value: megabyte },
        ],
      ),
    });
    expect(res.status).toBe(200);
    await service.drainQueues();
    const stored = await service.api('GET', `/spans/traces/${traceId}`, { apiKey });
    expect(stored.status).toBe(200);
    const agents = await service.api('GET', '/agents', { apiKey });
    expect(agents.body.data.map((a: { name: string }) => a.name.length)).toEqual([expect.any(Number)]);
    expect(agents.body.data[0].name.length).toBeLessThanOrEqual(250);
  });
});
