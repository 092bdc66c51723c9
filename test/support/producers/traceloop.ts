/**
 * OpenLLMetry / Traceloop: `@traceloop/instrumentation-openai` around the OpenAI client (pointed at the
 * loopback stub) makes the LLM spans. The workflow, task and tool spans around them and the
 * association properties on every span come from the Traceloop SDK's `withWorkflow` / `withTask` /
 * `withTool` and its span processor (`@traceloop/node-server-sdk`, lib/tracing/decorators.ts and
 * span-processor.ts); that SDK installs some 280 packages, so `traceloopEntity` and
 * `traceloopSpanProcessor` below write the same attributes the same way.
 */

import { type Context, context, createContextKey, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import OpenAI from 'openai';
import { pause } from './context.ts';
import { WEATHER_TOOLS } from './openai-stub.ts';

const WORKFLOW_NAME_KEY = createContextKey('workflow_name');
const ENTITY_NAME_KEY = createContextKey('entity_name');
const ASSOCIATION_PROPERTIES_KEY = createContextKey('association_properties');

type EntityKind = 'workflow' | 'task' | 'agent' | 'tool';

/** The SDK's `withEntity`: a `<name>.<kind>` span carrying the entity attributes, its arguments and its result. */
async function traceloopEntity<T>(
  tracer: Tracer,
  kind: EntityKind,
  config: { name: string; associationProperties?: Record<string, string> },
  fn: () => Promise<T>,
  args: unknown[],
): Promise<T> {
  let entityContext: Context = context.active();
  if (kind === 'workflow' || kind === 'agent') entityContext = entityContext.setValue(WORKFLOW_NAME_KEY, config.name);
  const entityPath = entityContext.getValue(ENTITY_NAME_KEY) as string | undefined;
  if (kind === 'task' || kind === 'tool') entityContext = entityContext.setValue(ENTITY_NAME_KEY, entityPath ? `${entityPath}.${config.name}` : config.name);
  if (config.associationProperties) entityContext = entityContext.setValue(ASSOCIATION_PROPERTIES_KEY, config.associationProperties);
  return context.with(entityContext, () =>
    tracer.startActiveSpan(`${config.name}.${kind}`, {}, entityContext, async (span: Span) => {
      if (kind === 'workflow' || kind === 'agent') span.setAttribute('traceloop.workflow.name', config.name);
      span.setAttribute('traceloop.entity.name', config.name);
      span.setAttribute('traceloop.entity.path', entityPath ?? '');
      span.setAttribute('traceloop.span.kind', kind);
      const input = args.length === 1 && typeof args[0] === 'object' ? { args: [], kwargs: args[0] } : { args, kwargs: {} };
      span.setAttribute('traceloop.entity.input', JSON.stringify(input));
      try {
        const result = await fn();
        span.setAttribute('traceloop.entity.output', JSON.stringify(result));
        return result;
      } finally {
        span.end();
      }
    }),
  );
}

/** The SDK's span processor: every span started inside a workflow gets its name, its entity path and the association properties. */
export const traceloopSpanProcessor = (): SpanProcessor => ({
  onStart(span) {
    const active = context.active();
    const workflowName = active.getValue(WORKFLOW_NAME_KEY);
    if (workflowName) span.setAttribute('traceloop.workflow.name', workflowName as string);
    const entityName = active.getValue(ENTITY_NAME_KEY);
    if (entityName) span.setAttribute('traceloop.entity.path', entityName as string);
    const properties = active.getValue(ASSOCIATION_PROPERTIES_KEY) as Record<string, string> | undefined;
    for (const [key, value] of Object.entries(properties ?? {})) span.setAttribute(`traceloop.association.properties.${key}`, value);
  },
  onEnd(_span: ReadableSpan) {},
  forceFlush: async () => {},
  shutdown: async () => {},
});

export const TRACELOOP_WORKFLOW = 'trip-planner';

/** A workflow: a planning task in which the model asks for `get_weather`, the tool answers, the model answers. */
export async function traceloopRun(provider: TracerProvider, baseURL: string): Promise<string> {
  const instrumentation = new OpenAIInstrumentation({ traceContent: true });
  instrumentation.setTracerProvider(provider);
  instrumentation.manuallyInstrument(OpenAI);
  try {
    const tracer = provider.getTracer('trip-planner-app');
    const client = new OpenAI({ apiKey: 'test-key', baseURL });
    const question = { question: 'What is the weather in Paris?' };
    return await traceloopEntity(
      tracer,
      'workflow',
      { name: TRACELOOP_WORKFLOW, associationProperties: { session_id: 'session-tl', user_id: 'user-tl', plan: 'pro' } },
      () =>
        traceloopEntity(
          tracer,
          'task',
          { name: 'plan' },
          async () => {
            const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: question.question }];
            const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: WEATHER_TOOLS });
            const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
            const city = (JSON.parse(call.function.arguments) as { city: string }).city;
            const weather = await traceloopEntity(tracer, 'tool', { name: 'get_weather' }, async () => (await pause(), { city, forecast: 'sunny' }), [
              { city },
            ]);
            messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(weather) });
            const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: WEATHER_TOOLS });
            return second.choices[0]!.message.content!;
          },
          [question],
        ),
      [question],
    );
  } finally {
    // `manuallyInstrument` has no public undo: `unpatch` is the instrumentation's own, private only in its type.
    (instrumentation as unknown as { unpatch(moduleExports: { OpenAI: typeof OpenAI }): void }).unpatch({ OpenAI });
  }
}
