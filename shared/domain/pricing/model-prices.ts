/**
 * List prices in US dollars per million tokens, as published by each provider (standard tier,
 * shortest context band, no batch discount). The first entry whose pattern matches the model id wins,
 * so more specific patterns come first. Patterns also match Bedrock ids such as
 * `us.anthropic.claude-sonnet-4-20250514-v1:0` or `amazon.nova-pro-v1:0`.
 * Reviewed 2026-11; update here, nowhere else.
 */
export interface ModelPrice {
  /** Matched against the model id, case-insensitively. */
  pattern: string;
  provider: 'openai' | 'anthropic' | 'amazon' | 'google' | 'mistral' | 'meta' | 'cohere';
  inputPerMTok: number;
  outputPerMTok: number;
  /** Price of input tokens read from the provider's prompt cache, where it has one. */
  cachedInputPerMTok?: number;
}

export const MODEL_PRICES: readonly ModelPrice[] = [
  // OpenAI
  { pattern: 'gpt-5[.-]?nano', provider: 'openai', inputPerMTok: 0.05, outputPerMTok: 0.4, cachedInputPerMTok: 0.005 },
  { pattern: 'gpt-5[.-]?mini', provider: 'openai', inputPerMTok: 0.25, outputPerMTok: 2.0, cachedInputPerMTok: 0.025 },
  { pattern: 'gpt-5', provider: 'openai', inputPerMTok: 1.25, outputPerMTok: 10.0, cachedInputPerMTok: 0.125 },
  { pattern: 'gpt-4\\.1-nano', provider: 'openai', inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  { pattern: 'gpt-4\\.1-mini', provider: 'openai', inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  { pattern: 'gpt-4\\.1', provider: 'openai', inputPerMTok: 2.0, outputPerMTok: 8.0, cachedInputPerMTok: 0.5 },
  { pattern: 'gpt-4o-mini', provider: 'openai', inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  { pattern: 'gpt-4o', provider: 'openai', inputPerMTok: 2.5, outputPerMTok: 10.0, cachedInputPerMTok: 1.25 },
  { pattern: 'gpt-4-turbo', provider: 'openai', inputPerMTok: 10.0, outputPerMTok: 30.0 },
  { pattern: 'gpt-4(?![\\w.])', provider: 'openai', inputPerMTok: 30.0, outputPerMTok: 60.0 },
  { pattern: 'gpt-3\\.5-turbo', provider: 'openai', inputPerMTok: 0.5, outputPerMTok: 1.5 },
  { pattern: '(^|[^\\w])o4-mini', provider: 'openai', inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.275 },
  { pattern: '(^|[^\\w])o3-mini', provider: 'openai', inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.55 },
  { pattern: '(^|[^\\w])o3', provider: 'openai', inputPerMTok: 2.0, outputPerMTok: 8.0, cachedInputPerMTok: 0.5 },
  { pattern: '(^|[^\\w])o1-mini', provider: 'openai', inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.55 },
  { pattern: '(^|[^\\w])o1', provider: 'openai', inputPerMTok: 15.0, outputPerMTok: 60.0, cachedInputPerMTok: 7.5 },
  { pattern: 'text-embedding-3-small', provider: 'openai', inputPerMTok: 0.02, outputPerMTok: 0 },
  { pattern: 'text-embedding-3-large', provider: 'openai', inputPerMTok: 0.13, outputPerMTok: 0 },
  { pattern: 'text-embedding-ada-002', provider: 'openai', inputPerMTok: 0.1, outputPerMTok: 0 },

  // Anthropic (direct and on Bedrock)
  { pattern: 'claude-opus-4[-.]?[56]', provider: 'anthropic', inputPerMTok: 5.0, outputPerMTok: 25.0, cachedInputPerMTok: 0.5 },
  { pattern: 'claude-opus-4', provider: 'anthropic', inputPerMTok: 15.0, outputPerMTok: 75.0, cachedInputPerMTok: 1.5 },
  {
    pattern: 'claude-sonnet-4|claude-3-7-sonnet|claude-3-5-sonnet|claude-3-sonnet',
    provider: 'anthropic',
    inputPerMTok: 3.0,
    outputPerMTok: 15.0,
    cachedInputPerMTok: 0.3,
  },
  { pattern: 'claude-haiku-4', provider: 'anthropic', inputPerMTok: 1.0, outputPerMTok: 5.0, cachedInputPerMTok: 0.1 },
  { pattern: 'claude-3-5-haiku', provider: 'anthropic', inputPerMTok: 0.8, outputPerMTok: 4.0, cachedInputPerMTok: 0.08 },
  { pattern: 'claude-3-haiku', provider: 'anthropic', inputPerMTok: 0.25, outputPerMTok: 1.25, cachedInputPerMTok: 0.03 },
  { pattern: 'claude-3-opus', provider: 'anthropic', inputPerMTok: 15.0, outputPerMTok: 75.0, cachedInputPerMTok: 1.5 },

  // Amazon Nova (Bedrock)
  { pattern: 'nova-micro', provider: 'amazon', inputPerMTok: 0.035, outputPerMTok: 0.14, cachedInputPerMTok: 0.00875 },
  { pattern: 'nova-lite', provider: 'amazon', inputPerMTok: 0.06, outputPerMTok: 0.24, cachedInputPerMTok: 0.015 },
  { pattern: 'nova-pro', provider: 'amazon', inputPerMTok: 0.8, outputPerMTok: 3.2, cachedInputPerMTok: 0.2 },
  { pattern: 'nova-premier', provider: 'amazon', inputPerMTok: 2.5, outputPerMTok: 12.5, cachedInputPerMTok: 0.625 },
  { pattern: 'titan-embed-text', provider: 'amazon', inputPerMTok: 0.02, outputPerMTok: 0 },

  // Google
  { pattern: 'gemini-2\\.5-flash-lite', provider: 'google', inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  { pattern: 'gemini-2\\.5-flash', provider: 'google', inputPerMTok: 0.3, outputPerMTok: 2.5, cachedInputPerMTok: 0.075 },
  { pattern: 'gemini-2\\.5-pro', provider: 'google', inputPerMTok: 1.25, outputPerMTok: 10.0, cachedInputPerMTok: 0.31 },
  { pattern: 'gemini-2\\.0-flash-lite', provider: 'google', inputPerMTok: 0.075, outputPerMTok: 0.3 },
  { pattern: 'gemini-2\\.0-flash', provider: 'google', inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  { pattern: 'gemini-1\\.5-flash', provider: 'google', inputPerMTok: 0.075, outputPerMTok: 0.3 },
  { pattern: 'gemini-1\\.5-pro', provider: 'google', inputPerMTok: 1.25, outputPerMTok: 5.0 },

  // Mistral
  { pattern: 'mistral-large', provider: 'mistral', inputPerMTok: 2.0, outputPerMTok: 6.0 },
  { pattern: 'mistral-medium', provider: 'mistral', inputPerMTok: 0.4, outputPerMTok: 2.0 },
  { pattern: 'mistral-small', provider: 'mistral', inputPerMTok: 0.1, outputPerMTok: 0.3 },
  { pattern: 'codestral', provider: 'mistral', inputPerMTok: 0.3, outputPerMTok: 0.9 },
  { pattern: 'pixtral-large', provider: 'mistral', inputPerMTok: 2.0, outputPerMTok: 6.0 },
  { pattern: 'ministral-8b', provider: 'mistral', inputPerMTok: 0.1, outputPerMTok: 0.1 },
  { pattern: 'ministral-3b', provider: 'mistral', inputPerMTok: 0.04, outputPerMTok: 0.04 },
  { pattern: 'mistral-nemo|open-mistral-nemo', provider: 'mistral', inputPerMTok: 0.15, outputPerMTok: 0.15 },

  // Meta Llama and Cohere (Bedrock)
  { pattern: 'llama-?3[-.]?[13]-70b|llama3-70b', provider: 'meta', inputPerMTok: 0.72, outputPerMTok: 0.72 },
  { pattern: 'llama-?3[-.]?[123]-8b|llama3-8b', provider: 'meta', inputPerMTok: 0.22, outputPerMTok: 0.22 },
  { pattern: 'command-r-plus', provider: 'cohere', inputPerMTok: 2.5, outputPerMTok: 10.0 },
  { pattern: 'command-r', provider: 'cohere', inputPerMTok: 0.15, outputPerMTok: 0.6 },
];
