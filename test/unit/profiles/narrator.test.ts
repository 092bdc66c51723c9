import { BedrockRuntimeClient, ConverseCommand, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { bedrockNarrator } from '../../../shared/adapters/narrator.ts';
import { profileStatistics } from '../../../shared/domain/profiles/statistics.ts';
import { AgentWorld, HOUR, MINUTE } from './fixtures.ts';

const bedrock = mockClient(BedrockRuntimeClient);
beforeEach(() => bedrock.reset());

const T0 = Date.UTC(2026, 2, 2, 8);
const statistics = profileStatistics(new AgentWorld().emit(T0, T0 + 4 * HOUR, 5 * MINUTE).evidence(T0, T0 + 4 * HOUR));
const input = { agent: { name: 'support-bot', description: 'Answers customer tickets' }, statistics };
const answer = (text: string) => ({ output: { message: { role: 'assistant' as const, content: [{ text }] } } });
const narrative = { useCase: 'Answers customer tickets.', behaviouralSummary: 'Steady, fast, rarely fails.', insights: ['One.', 'Two.', 'Three.'] };

describe('the Bedrock narrator', () => {
  it('asks the model through Converse, at temperature 0, with the agent and its statistics, and reads its JSON answer', async () => {
    bedrock.on(ConverseCommand).resolves(answer(`Here it is:\n\`\`\`json\n${JSON.stringify(narrative)}\n\`\`\``));
    const narrator = bedrockNarrator('amazon.nova-micro-v1:0', new BedrockRuntimeClient({}));
    expect(narrator.name).toBe('bedrock:amazon.nova-micro-v1:0');
    expect(await narrator.narrate(input)).toEqual(narrative);
    expect(bedrock).toHaveReceivedCommandWith(ConverseCommand, {
      modelId: 'amazon.nova-micro-v1:0',
      inferenceConfig: { maxTokens: 800, temperature: 0 },
      messages: [{ role: 'user', content: [{ text: JSON.stringify(input) }] }],
    });
    const system = bedrock.commandCalls(ConverseCommand)[0]!.args[0].input.system![0]!;
    expect('text' in system && system.text).toMatch(/"insights": \["<3 to 5 short observations/);
  });

  it('throws on an answer that is not a valid narrative, and on a failed call, so the template takes over', async () => {
    const narrator = bedrockNarrator('m', new BedrockRuntimeClient({}));
    bedrock.on(ConverseCommand).resolves(answer('I cannot help with that.'));
    await expect(narrator.narrate(input)).rejects.toThrow(/no JSON object/);
    bedrock.on(ConverseCommand).resolves(answer(JSON.stringify({ ...narrative, insights: ['only one'] })));
    await expect(narrator.narrate(input)).rejects.toThrow(/insights/);
    bedrock.on(ConverseCommand).rejects(new ThrottlingException({ message: 'slow down', $metadata: {} }));
    await expect(narrator.narrate(input)).rejects.toBeInstanceOf(ThrottlingException);
  });
});
