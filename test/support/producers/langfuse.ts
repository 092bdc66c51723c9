/**
 * Langfuse's own SDK (`@langfuse/tracing`): an agent observation with a generation and a tool, trace
 * attributes propagated — the `langfuse.*` attributes a Langfuse user sends, whatever the endpoint.
 */
import { propagateAttributes, setLangfuseTracerProvider, startActiveObservation, startObservation } from '@langfuse/tracing';
import type { TracerProvider } from '@opentelemetry/api';
import { pause } from './context.ts';

export const LANGFUSE_TRACE_NAME = 'refund-desk';
export const LANGFUSE_TOOL_FAILURE = 'order 7 not found';

/**
 * The generation reports its usage Langfuse's way (200 uncached input tokens beside 800 cache reads,
 * 60 output tokens) and its cost ($0.0042 in total); the tool fails with level ERROR.
 */
export async function langfuseRun(provider: TracerProvider): Promise<void> {
  setLangfuseTracerProvider(provider);
  try {
    await startActiveObservation(
      'support-agent',
      async (agent) => {
        await propagateAttributes(
          { userId: 'user-lf', sessionId: 'session-lf', traceName: LANGFUSE_TRACE_NAME, tags: ['refunds'], metadata: { tier: 'gold' } },
          async () => {
            agent.update({ input: { question: 'Can I get a refund for order 7?' } });
            await pause();
            const generation = startObservation(
              'draft-answer',
              { model: 'gpt-4o', input: [{ role: 'user', content: 'Can I get a refund for order 7?' }], modelParameters: { temperature: 0.2 } },
              { asType: 'generation' },
            );
            await pause();
            generation
              .update({
                output: { role: 'assistant', content: 'Let me look the order up.' },
                usageDetails: { input: 200, cache_read_input_tokens: 800, output: 60 },
                costDetails: { input: 0.0033, output: 0.0009, total: 0.0042 },
              })
              .end();
            const lookup = startObservation('lookup-order', { input: { orderId: 7 } }, { asType: 'tool' });
            await pause();
            lookup.update({ output: { found: false }, level: 'ERROR', statusMessage: LANGFUSE_TOOL_FAILURE }).end();
            agent.update({ output: 'Order 7 could not be found.' });
          },
        );
      },
      { asType: 'agent' },
    );
  } finally {
    setLangfuseTracerProvider(null);
  }
}
