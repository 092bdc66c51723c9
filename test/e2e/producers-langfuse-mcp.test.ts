/**
 * Langfuse's SDK (`@langfuse/tracing`) and MCP client spans, exporting over OTLP to the local service:
 * what a user then sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNamed, errorAlertsOf, exportingProvider, metricsOf, traceOf, treeOf } from '../support/otlp-export.ts';
import { LANGFUSE_TOOL_FAILURE, LANGFUSE_TRACE_NAME, langfuseRun } from '../support/producers/langfuse.ts';
import { MCP_AGENT, MCP_TOOL_FAILURE, mcpRun } from '../support/producers/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 5000, standard: 5000 }) } });
  ({ apiKey } = await service.signUp('langfuse-mcp@example.com'));
});
afterAll(() => service?.stop());

describe('Langfuse over OTLP', () => {
  it('observations: the trace name as the agent, the producer-sent cost, Langfuse usage, level ERROR, session, user, tags and metadata', async () => {
    const exporter = exportingProvider(service, apiKey, 'support-service', 'json');
    await langfuseRun(exporter.provider);
    await exporter.deliver();
    const traceId = exporter.traceIds()[0]!;
    const trace = await traceOf(service, apiKey, traceId, 3);

    expect(trace).toMatchObject({
      agentName: LANGFUSE_TRACE_NAME,
      name: 'support-agent',
      status: 'ok',
      errorCount: 1,
      inputTokens: 1000,
      outputTokens: 60,
      cost: 0.0042,
      model: 'gpt-4o',
      sessionId: 'session-lf',
      userId: 'user-lf',
    });
    expect(treeOf(trace.spans)).toEqual(['support-agent (agent)', '  draft-answer (llm)', '  lookup-order (tool)']);
    expect(trace.one('support-agent')).toMatchObject({
      tags: ['refunds'],
      metadata: { tier: 'gold' },
      input: '{"question":"Can I get a refund for order 7?"}',
      output: 'Order 7 could not be found.',
    });
    const generation = trace.one('draft-answer');
    expect(generation).toMatchObject({ model: 'gpt-4o', inputTokens: 1000, cachedInputTokens: 800, outputTokens: 60, cost: 0.0042, costEstimated: false });
    expect(JSON.parse(generation.input!)).toEqual([{ role: 'user', content: 'Can I get a refund for order 7?' }]);
    expect(generation.attributes).toMatchObject({ 'langfuse.observation.model.parameters': '{"temperature":0.2}' });
    expect(trace.one('lookup-order')).toMatchObject({
      toolName: 'lookup-order',
      status: 'error',
      statusMessage: LANGFUSE_TOOL_FAILURE,
      input: '{"orderId":7}',
    });

    const agentId = await agentNamed(service, apiKey, LANGFUSE_TRACE_NAME);
    const alerts = await errorAlertsOf(service, apiKey, agentId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ occurrenceCount: 1, traceIds: [traceId], message: `tool span "lookup-order" failed: ${LANGFUSE_TOOL_FAILURE}` });
    expect(await metricsOf(service, apiKey, agentId)).toMatchObject({ totalTraces: 1, totalTokens: 1060, totalCost: 0.0042 });
  });
});

describe('MCP over OTLP', () => {
  it('client spans: tool calls as tools with their arguments and results, the failing one alerting, resource reads as retrievals', async () => {
    const exporter = exportingProvider(service, apiKey, 'mcp-client', 'protobuf');
    mcpRun(exporter.provider.getTracer('mcp-client'));
    await exporter.deliver();
    const traceId = exporter.traceIds()[0]!;
    const trace = await traceOf(service, apiKey, traceId, 6);

    expect(trace).toMatchObject({ agentName: MCP_AGENT, status: 'ok', errorCount: 1 });
    expect(treeOf(trace.spans)).toEqual([
      'invoke_agent travel-assistant (agent)',
      '  initialize (other)',
      '  tools/list (other)',
      '  tools/call get_forecast (tool)',
      '  tools/call book_flight (tool)',
      '  resources/read (retrieval)',
    ]);
    expect(trace.one('tools/call get_forecast')).toMatchObject({ toolName: 'get_forecast', input: '{"city":"Lisbon"}', output: '{"forecast":"sunny"}' });
    expect(trace.one('tools/call book_flight')).toMatchObject({ toolName: 'book_flight', status: 'error', statusMessage: MCP_TOOL_FAILURE });
    expect(trace.one('resources/read')).toMatchObject({
      input: 'file:///itineraries/42.json',
      attributes: expect.objectContaining({ 'mcp.session.id': 'mcp-session-1' }),
    });

    const filters = (await service.api('GET', '/spans/filters', { apiKey })).body.data;
    expect(filters.toolNames).toEqual(expect.arrayContaining(['get_forecast', 'book_flight']));
    const alerts = await errorAlertsOf(service, apiKey, await agentNamed(service, apiKey, MCP_AGENT));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ occurrenceCount: 1, message: `tool span "tools/call book_flight" failed: tool_error: ${MCP_TOOL_FAILURE}` });
  });
});
