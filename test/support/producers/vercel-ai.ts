/**
 * The Vercel AI SDK (`ai`) with `experimental_telemetry`, driving its own mock language model from
 * `ai/test`: the spans are the ones the SDK writes for a real model.
 */
import type { Tracer } from '@opentelemetry/api';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { pause } from './context.ts';

type MockOptions = NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>;
type GenerateResult = Exclude<MockOptions['doGenerate'], ((...args: never[]) => unknown) | unknown[] | undefined>;

const usage = (input: number, cacheRead: number, output: number, reasoning: number): GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: output - reasoning, reasoning },
});

export const VERCEL_AGENT = 'weather-agent';
export const VERCEL_TOOL_RESULT = { city: 'Paris', forecast: 'sunny', celsius: 21 };

/**
 * `generateText` with a tool: the model asks for `getWeather` (1000 input tokens, 600 cached; 50
 * output, 10 reasoning), the tool runs, the model answers (1200 input, 800 cached; 30 output).
 */
export async function vercelToolCallRun(tracer: Tracer): Promise<string> {
  const responses: GenerateResult[] = [
    {
      content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'getWeather', input: JSON.stringify({ city: 'Paris' }) }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage(1000, 600, 50, 10),
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'It is sunny in Paris.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(1200, 800, 30, 0),
      warnings: [],
    },
  ];
  const model = new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-4o-mini',
    doGenerate: async () => {
      await pause();
      return responses.shift()!;
    },
  });
  const result = await generateText({
    model,
    system: 'You answer weather questions.',
    prompt: 'What is the weather in Paris?',
    tools: { getWeather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => (await pause(), VERCEL_TOOL_RESULT) }) },
    stopWhen: stepCountIs(3),
    experimental_telemetry: {
      isEnabled: true,
      functionId: VERCEL_AGENT,
      metadata: { userId: 'user-vercel', sessionId: 'session-vercel', tags: ['weather', 'beta'], plan: 'pro' },
      tracer,
    },
  });
  return result.text;
}

/** `streamText` from an Anthropic model: 300 input tokens, 40 output tokens, text in two chunks. */
export async function vercelStreamRun(tracer: Tracer): Promise<string> {
  const model = new MockLanguageModelV3({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doStream: {
      stream: convertArrayToReadableStream([
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'msg_1', modelId: 'claude-sonnet-4-5-20250929', timestamp: new Date(0) },
        { type: 'text-start', id: 'text-1' },
        { type: 'text-delta', id: 'text-1', delta: 'Hello' },
        { type: 'text-delta', id: 'text-1', delta: ', traveller!' },
        { type: 'text-end', id: 'text-1' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: usage(300, 0, 40, 0) },
      ]),
    },
  });
  const result = streamText({
    model,
    messages: [{ role: 'user', content: 'Greet the traveller.' }],
    experimental_telemetry: { isEnabled: true, functionId: 'greeter', tracer },
  });
  await result.consumeStream();
  return result.text;
}

export const VERCEL_FAILURE = 'upstream model overloaded';

/** `generateText` whose model call fails: the SDK marks the model call and the outer call failed, and rethrows. */
export async function vercelFailingRun(tracer: Tracer): Promise<Error> {
  const model = new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-4o-mini',
    doGenerate: async () => {
      throw new Error(VERCEL_FAILURE);
    },
  });
  try {
    await generateText({
      model,
      prompt: 'Summarize the ticket.',
      maxRetries: 0,
      experimental_telemetry: { isEnabled: true, functionId: 'summarizer', tracer },
    });
  } catch (err) {
    return err as Error;
  }
  throw new Error('the failing model call did not fail');
}
