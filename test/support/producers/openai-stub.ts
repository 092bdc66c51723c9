/**
 * A loopback stand-in for the OpenAI Chat Completions API, for the OpenAI client the OpenInference and
 * Traceloop instrumentations wrap: the first call of a conversation asks for the `get_weather` tool,
 * the call that brings the tool's result gets the answer.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export const STUB_MODEL = 'gpt-4o-mini-2024-07-18';
export const STUB_ANSWER = 'Sunny in Paris, 21 °C.';
/** Usage of every call: 1200 prompt tokens (1000 of them from the cache), 80 completion tokens (16 of them reasoning). */
export const STUB_USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 80,
  total_tokens: 1280,
  prompt_tokens_details: { cached_tokens: 1000 },
  completion_tokens_details: { reasoning_tokens: 16 },
};

export interface OpenAiStub {
  baseURL: string;
  close(): Promise<void>;
}

export async function startOpenAiStub(): Promise<OpenAiStub> {
  const server = createServer(async (req, res) => {
    const request = JSON.parse(await bodyOf(req)) as { messages?: { role: string }[] };
    const hasToolResult = request.messages?.some((message) => message.role === 'tool') ?? false;
    const message = hasToolResult
      ? { role: 'assistant', content: STUB_ANSWER }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${hasToolResult ? 2 : 1}`,
        object: 'chat.completion',
        created: 1_767_225_600,
        model: STUB_MODEL,
        choices: [{ index: 0, message, finish_reason: hasToolResult ? 'stop' : 'tool_calls' }],
        usage: STUB_USAGE,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8') || '{}';
}

/** The tools the instrumented agents offer the model. */
export const WEATHER_TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
