/**
 * For the producer end-to-end tests: a tracer provider exporting to the local service over OTLP/HTTP
 * (batched, as the Node SDK does by default), and reads of what a user then sees.
 */
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type * as z from 'zod';
import type { span } from '#shared/schemas/responses/telemetry.ts';
import { recordingProvider } from './producers/context.ts';
import type { TestService } from './service.ts';

export type OtlpEncoding = 'json' | 'protobuf';

/** Exports every span to `service` with `apiKey`; also records them, for their trace ids. */
export function exportingProvider(service: TestService, apiKey: string, serviceName: string, encoding: OtlpEncoding, processors: SpanProcessor[] = []) {
  const options = { url: `${service.baseUrl}/v1/traces`, headers: { 'x-api-key': apiKey } };
  const exporter = encoding === 'json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
  const recorder = recordingProvider(serviceName, [...processors, new BatchSpanProcessor(exporter)]);
  return {
    ...recorder,
    /** Sends what is still batched and waits until the service has stored it. */
    async deliver(): Promise<void> {
      await recorder.provider.forceFlush();
      await service.drainQueues();
    },
  };
}

/** A span as `GET /spans/traces/:traceId` answers it. */
export type SpanView = z.infer<typeof span>;

/** `GET /spans/traces/:traceId`, once the trace holds `spanCount` spans. */
export async function traceOf(service: TestService, apiKey: string, traceId: string, spanCount: number) {
  const res = await service.api('GET', `/spans/traces/${traceId}`, { apiKey });
  if (res.status !== 200) throw new Error(`GET /spans/traces/${traceId} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  const trace = res.body.data as Record<string, any> & { spans: SpanView[] };
  if (trace.spanCount !== spanCount) throw new Error(`trace ${traceId} holds ${trace.spanCount} spans, not ${spanCount}`);
  return { ...trace, named: (name: string) => trace.spans.filter((s) => s.name === name), one: (name: string) => oneNamed(trace.spans, name) };
}

function oneNamed(spans: SpanView[], name: string): SpanView {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one span named ${name}, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

/** The tree as a user reads it: each span's name, indented by its depth. */
export const treeOf = (spans: SpanView[]): string[] => spans.map((s) => `${'  '.repeat(s.depth)}${s.name} (${s.kind})`);

/** `GET /agents/:id`-free lookups: an agent's id by name, and its metrics over the default window. */
export async function agentNamed(service: TestService, apiKey: string, name: string): Promise<string> {
  const agents = (await service.api('GET', '/agents?limit=100', { apiKey })).body.data as Array<{ id: string; name: string }>;
  const agent = agents.find((a) => a.name === name);
  if (!agent) throw new Error(`no agent named ${name} (${agents.map((a) => a.name).join(', ')})`);
  return agent.id;
}

export async function metricsOf(service: TestService, apiKey: string, agentId: string) {
  const res = await service.api('GET', `/analytics/metrics?agentId=${agentId}`, { apiKey });
  if (res.status !== 200) throw new Error(`GET /analytics/metrics answered ${res.status}`);
  return res.body.data as Record<string, any>;
}

/** The agent's `error` alerts. */
export async function errorAlertsOf(service: TestService, apiKey: string, agentId: string) {
  return (await service.api('GET', `/spans/alerts?agentId=${agentId}&type=error`, { apiKey })).body.data as Array<Record<string, any>>;
}
