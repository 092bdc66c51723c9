/**
 * The OpenTelemetry logs SDK (`@opentelemetry/sdk-logs` with its OTLP/HTTP exporter), emitting GenAI
 * event records inside a trace: the event name survives, shows in `GET /logs` and filters it.
 */

import { context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportingProvider } from '../support/otlp-export.ts';
import { startTestService, type TestService } from '../support/service.ts';

const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

let service: TestService;
let apiKey: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } });
  ({ apiKey } = await service.signUp('otel-logs@example.com'));
});
afterAll(() => service?.stop());

describe('OpenTelemetry log records over OTLP', () => {
  it('keep their event name: shown in GET /logs and on the trace, and filterable', async () => {
    const tracing = exportingProvider(service, apiKey, 'chat-service', 'json');
    const logging = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'chat-service', 'gen_ai.agent.name': 'chat-agent' }),
      processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${service.baseUrl}/v1/logs`, headers: { 'x-api-key': apiKey } }) })],
    });
    const logger = logging.getLogger('genai-instrumentation', '1.0.0');
    const span = tracing.provider.getTracer('genai-instrumentation').startSpan('chat gpt-4o', {
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.agent.name': 'chat-agent' },
    });
    const inSpan = trace.setSpan(context.active(), span);
    logger.emit({
      eventName: DETAILS_EVENT,
      severityNumber: SeverityNumber.INFO,
      context: inSpan,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] }]),
      },
    });
    logger.emit({ severityNumber: SeverityNumber.WARN, body: 'retrying after a 429', context: inSpan });
    span.end();
    await logging.forceFlush();
    await tracing.deliver();
    const traceId = span.spanContext().traceId;

    const all = (await service.api('GET', `/logs?traceId=${traceId}`, { apiKey })).body.data as Array<Record<string, unknown>>;
    expect(all).toHaveLength(2);
    const details = all.find((log) => log['eventName'] === DETAILS_EVENT)!;
    expect(details).toMatchObject({ level: 'info', message: DETAILS_EVENT, traceId, spanId: span.spanContext().spanId, agentName: 'chat-agent' });
    expect(details['attributes']).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': expect.stringContaining('"Hi"') });
    expect(all.find((log) => log['message'] === 'retrying after a 429')).toMatchObject({ level: 'warn', eventName: null });

    const filtered = await service.api('GET', `/logs?eventName=${encodeURIComponent(DETAILS_EVENT)}`, { apiKey });
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.map((log: { eventName: string }) => log.eventName)).toEqual([DETAILS_EVENT]);
    expect((await service.api('GET', '/logs?eventName=gen_ai.other.event', { apiKey })).body.data).toEqual([]);
    expect((await service.api('GET', `/logs?eventName=${'x'.repeat(300)}`, { apiKey })).status).toBe(400);

    const traceLogs = (await service.api('GET', `/spans/traces/${traceId}`, { apiKey })).body.data.logs as Array<Record<string, unknown>>;
    expect(traceLogs.map((log) => log['eventName']).sort()).toEqual([DETAILS_EVENT, null].sort());
    await logging.shutdown();
  });
});
