import { extendedEncodeURIComponent } from '@smithy/core/protocols';
import { callAws, type AwsApi, type AwsCallOptions } from './aws-call.ts';

/**
 * Bedrock Runtime's Converse, the one operation the judge and the narrator use. Wire format (REST JSON):
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
const BEDROCK_RUNTIME: AwsApi = {
  name: 'Bedrock Runtime',
  signingName: 'bedrock',
  endpointPrefix: 'bedrock-runtime',
  endpointEnvId: 'BEDROCK_RUNTIME',
  protocol: 'rest-json',
  bearerTokenEnv: 'AWS_BEARER_TOKEN_BEDROCK',
};

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

interface ConverseOutput {
  output?: { message?: { content?: { text?: unknown }[] } };
  usage?: { inputTokens?: unknown; outputTokens?: unknown };
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * Converse in the function's region (`AWS_REGION`), signed with its role's credentials, or with a
 * Bedrock API key when `AWS_BEARER_TOKEN_BEDROCK` holds one (as the SDK client does). Refusals throw
 * AwsServiceError (ThrottlingException, AccessDeniedException, ValidationException...).
 */
export function bedrockConverse(options: Partial<AwsCallOptions> = {}): Converse {
  return async (modelId, { system, messages, maxTokens, temperature }) => {
    const answer = (await callAws(
      BEDROCK_RUNTIME,
      {
        name: 'Converse',
        path: `/model/${extendedEncodeURIComponent(modelId)}/converse`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages, system: [{ text: system }], inferenceConfig: { maxTokens, temperature } }),
      },
      options,
    )) as ConverseOutput;
    const blocks = Array.isArray(answer.output?.message?.content) ? answer.output.message.content : [];
    return {
      text: blocks.map((block) => (typeof block?.text === 'string' ? block.text : '')).join(''),
      inputTokens: count(answer.usage?.inputTokens),
      outputTokens: count(answer.usage?.outputTokens),
    };
  };
}
