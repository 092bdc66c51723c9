import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { traced } from '../observability/tracer.ts';
import { type CallPolicy, clientSettings } from './aws-clients.ts';

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: { text: string }[];
}
export interface ConverseRequest {
  system: string;
  messages: readonly ConverseMessage[];
  maxTokens: number;
  temperature: number;
}
export interface ConverseAnswer {
  /** The text blocks of the answer, joined. */
  text: string;
  inputTokens: number;
  outputTokens: number;
}
/** One Converse call with a model id, an inference profile id or either's ARN. */
export type Converse = (modelId: string, request: ConverseRequest) => Promise<ConverseAnswer>;

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * A Bedrock Runtime client in the function's region (`AWS_REGION`), signed with its role's credentials,
 * or with a Bedrock API key when `AWS_BEARER_TOKEN_BEDROCK` holds one; `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`
 * points it elsewhere (any HTTP/1.1 endpoint).
 */
export const bedrockRuntimeClient = (policy: CallPolicy): BedrockRuntimeClient => traced(new BedrockRuntimeClient(clientSettings(policy)));

/** Converse through the client. Refusals throw the SDK's exceptions (ThrottlingException, AccessDeniedException, ValidationException...). */
export function bedrockConverse(client: BedrockRuntimeClient): Converse {
  return async (modelId, { system, messages, maxTokens, temperature }) => {
    const answer = await client.send(
      new ConverseCommand({
        modelId,
        messages: messages.map((m) => ({ role: m.role, content: m.content.map(({ text }) => ({ text })) })),
        system: [{ text: system }],
        inferenceConfig: { maxTokens, temperature },
      }),
    );
    const blocks = answer.output?.message?.content ?? [];
    return {
      text: blocks.map((block) => block.text ?? '').join(''),
      inputTokens: count(answer.usage?.inputTokens),
      outputTokens: count(answer.usage?.outputTokens),
    };
  };
}
