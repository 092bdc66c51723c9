/**
 * What the producers need from OpenTelemetry itself: an async context manager (the Node SDK registers
 * one; a bare tracer provider does not, and without it every span would be a root) and a way to
 * record what they emit.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

let contextManagerRegistered = false;

/**
 * Work takes time: a model call or a tool pausing a few milliseconds starts its successor in a later
 * millisecond, so siblings keep their order once times are stored in milliseconds.
 */
export const pause = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Registers the AsyncLocalStorage context manager, once per process. */
export function useAsyncContext(): void {
  if (contextManagerRegistered) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerRegistered = true;
}

/** A tracer provider that keeps every finished span in memory (besides the given processors). */
export function recordingProvider(serviceName: string, processors: SpanProcessor[] = []) {
  useAsyncContext();
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [...processors, new SimpleSpanProcessor(memory)],
  });
  return {
    provider,
    /** The spans finished so far, the oldest first. */
    spans: (): ReadableSpan[] => memory.getFinishedSpans(),
    /** Trace ids in the order their first span finished. */
    traceIds: (): string[] => [...new Set(memory.getFinishedSpans().map((s) => s.spanContext().traceId))],
    reset: () => memory.reset(),
  };
}
