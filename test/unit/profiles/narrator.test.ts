import { ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import type { Converse, ConverseRequest } from '#shared/adapters/bedrock-converse.ts';
import { bedrockNarrator } from '#shared/adapters/narrator.ts';
import { profileStatistics } from '#shared/domain/profiles/statistics.ts';
import { AgentWorld, HOUR, MINUTE } from './fixtures.ts';

const T0 = Date.UTC(2026, 2, 2, 8);
const statistics = profileStatistics(new AgentWorld().emit(T0, T0 + 4 * HOUR, 5 * MINUTE).evidence(T0, T0 + 4 * HOUR));
const input = { agent: { name: 'support-bot', description: 'Answers customer tickets' }, statistics };
/** Converse answering `text`, or throwing `text` when it is an error; the calls are recorded. */
function converseAnswering(text: string | Error): Converse & { calls: { modelId: string; request: ConverseRequest }[] } {
  const calls: { modelId: string; request: ConverseRequest }[] = [];
  return Object.assign(
    async (modelId: string, request: ConverseRequest) => {
      calls.push({ modelId, request });
      if (text instanceof Error) throw text;
      return { text, inputTokens: 10, outputTokens: 5 };
    },
    { calls },
  );
}
const narrative = { useCase: 'Answers customer tickets.', behaviouralSummary: 'Steady, fast, rarely fails.', insights: ['One.', 'Two.', 'Three.'] };

describe('the Bedrock narrator', () => {
  it('asks the model through Converse, at temperature 0, with the agent and its statistics, and reads its JSON answer', async () => {
    const converse = converseAnswering(`Here it is:\n\`\`\`json\n${JSON.stringify(narrative)}\n\`\`\``);
    const narrator = bedrockNarrator('amazon.nova-micro-v1:0', converse);
    expect(narrator.name).toBe('bedrock:amazon.nova-micro-v1:0');
    expect(await narrator.narrate(input)).toEqual(narrative);
    expect(converse.calls).toEqual([
      {
        modelId: 'amazon.nova-micro-v1:0',
        request: {
          system: expect.stringMatching(/"insights": \["<3 to 5 short observations/),
          messages: [{ role: 'user', content: [{ text: JSON.stringify(input) }] }],
          maxTokens: 800,
          temperature: 0,
        },
      },
    ]);
  });

  it('throws on an answer that is not a valid narrative, and on a failed call, so the template takes over', async () => {
    await expect(bedrockNarrator('m', converseAnswering('I cannot help with that.')).narrate(input)).rejects.toThrow(/no JSON object/);
    await expect(bedrockNarrator('m', converseAnswering(JSON.stringify({ ...narrative, insights: ['only one'] }))).narrate(input)).rejects.toThrow(/insights/);
    const throttled = new ThrottlingException({ message: 'slow down', $metadata: {} });
    await expect(bedrockNarrator('m', converseAnswering(throttled)).narrate(input)).rejects.toBe(throttled);
  });
});
