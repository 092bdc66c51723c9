/**
 * OpenInference, as Phoenix users instrument an agent: `@arizeai/openinference-instrumentation-openai`
 * around the OpenAI client (pointed at the loopback stub), `traceAgent` / `traceTool` from
 * `@arizeai/openinference-core` around the agent and its tools, session, user, metadata and tags set
 * on the context.
 */
import { setMetadata, setSession, setTags, setUser, traceAgent, traceTool } from '@arizeai/openinference-core';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { context, type TracerProvider } from '@opentelemetry/api';
import OpenAI from 'openai';
import { pause } from './context.ts';
import { WEATHER_TOOLS } from './openai-stub.ts';

export const OPENINFERENCE_AGENT = 'trip-advisor';
export const INVENTORY_FAILURE = 'inventory service unavailable';

/**
 * One agent run: the model asks for `get_weather`, the tool answers, a `check_inventory` tool fails
 * (the agent carries on), the model answers.
 */
export async function openInferenceRun(provider: TracerProvider, baseURL: string): Promise<string> {
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(OpenAI);
  try {
    const tracer = provider.getTracer('trip-advisor-app');
    const client = new OpenAI({ apiKey: 'test-key', baseURL });
    const getWeather = traceTool(async (city: string) => (await pause(), { city, forecast: 'sunny' }), { name: 'get_weather', tracer });
    const checkInventory = traceTool(
      async (_item: string): Promise<number> => {
        await pause();
        throw new Error(INVENTORY_FAILURE);
      },
      { name: 'check_inventory', tracer },
    );
    const agent = traceAgent(
      async (question: string) => {
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
          { role: 'system', content: 'You plan trips.' },
          { role: 'user', content: question },
        ];
        const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: WEATHER_TOOLS });
        const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
        const weather = await getWeather((JSON.parse(call.function.arguments) as { city: string }).city);
        await checkInventory('umbrella').catch(() => null);
        messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(weather) });
        const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: WEATHER_TOOLS });
        return second.choices[0]!.message.content!;
      },
      { name: OPENINFERENCE_AGENT, tracer },
    );
    const attributed = setSession(setUser(setMetadata(setTags(context.active(), ['trips', 'beta']), { plan: 'pro', region: 'eu' }), { userId: 'user-oi' }), {
      sessionId: 'session-oi',
    });
    return await context.with(attributed, () => agent('What is the weather in Paris?'));
  } finally {
    instrumentation.disable();
  }
}
