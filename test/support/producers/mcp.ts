/**
 * MCP client spans as the OpenTelemetry MCP semantic conventions describe them (no MCP SDK ships an
 * instrumentation yet): an agent that initializes a session, lists tools, calls one that works and one
 * that reports `isError` (`error.type = tool_error`), and reads a resource.
 */
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

export const MCP_AGENT = 'travel-assistant';
export const MCP_TOOL_FAILURE = 'no seats left on flight AF123';

/** The calls start 10 ms apart, each taking 5 ms. */
export function mcpRun(tracer: Tracer, startMs = Date.now()): void {
  const agent = tracer.startSpan('invoke_agent travel-assistant', {
    startTime: startMs,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': MCP_AGENT },
  });
  const inAgent = trace.setSpan(context.active(), agent);
  const session = { 'mcp.session.id': 'mcp-session-1', 'mcp.protocol.version': '2025-06-18', 'network.transport': 'tcp', 'server.address': 'mcp.example.com' };
  let calls = 0;
  const call = (name: string, attributes: Record<string, string | number>, finish: (span: Span) => void = () => {}) => {
    const callStartMs = startMs + 10 * ++calls;
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: callStartMs, attributes: { ...session, ...attributes } }, inAgent);
    finish(span);
    span.end(callStartMs + 5);
  };
  call('initialize', { 'mcp.method.name': 'initialize', 'jsonrpc.request.id': 1 });
  call('tools/list', { 'mcp.method.name': 'tools/list', 'jsonrpc.request.id': 2 });
  call('tools/call get_forecast', {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'get_forecast',
    'jsonrpc.request.id': 3,
    'gen_ai.tool.call.arguments': '{"city":"Lisbon"}',
    'gen_ai.tool.call.result': '{"forecast":"sunny"}',
  });
  call(
    'tools/call book_flight',
    { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'book_flight', 'jsonrpc.request.id': 4, 'error.type': 'tool_error' },
    (span) => span.setStatus({ code: SpanStatusCode.ERROR, message: MCP_TOOL_FAILURE }),
  );
  call('resources/read', { 'mcp.method.name': 'resources/read', 'mcp.resource.uri': 'file:///itineraries/42.json', 'jsonrpc.request.id': 5 });
  agent.end(startMs + 10 * (calls + 1));
}
