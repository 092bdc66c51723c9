/**
 * One export per dialect, recorded from the real producers the end-to-end tests run (the AI SDK, the
 * OpenInference and Traceloop OpenAI instrumentations on a loopback stub, Langfuse's SDK) and the MCP
 * client spans: `runs` runs of each, in memory.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { recordingProvider } from '../../support/producers/context.ts';
import { langfuseRun } from '../../support/producers/langfuse.ts';
import { mcpRun } from '../../support/producers/mcp.ts';
import { startOpenAiStub } from '../../support/producers/openai-stub.ts';
import { openInferenceRun } from '../../support/producers/openinference.ts';
import { traceloopRun, traceloopSpanProcessor } from '../../support/producers/traceloop.ts';
import { vercelFailingRun, vercelStreamRun, vercelToolCallRun } from '../../support/producers/vercel-ai.ts';

export interface DialectExport {
  /** The figure keys' prefix. */
  key: string;
  label: string;
  spans: ReadableSpan[];
}

export async function recordDialectExports(runs: number): Promise<DialectExport[]> {
  const stub = await startOpenAiStub();
  try {
    const record = async (key: string, label: string, run: (recorder: ReturnType<typeof recordingProvider>) => Promise<unknown>) => {
      const recorder = recordingProvider(`${key}-service`, key === 'traceloop' ? [traceloopSpanProcessor()] : []);
      for (let i = 0; i < runs; i++) await run(recorder);
      return { key, label, spans: recorder.spans() };
    };
    return [
      await record('vercel', 'Vercel AI SDK (generateText with a tool, streamText, a failing call)', async ({ provider }) => {
        const tracer = provider.getTracer('ai');
        await vercelToolCallRun(tracer);
        await vercelStreamRun(tracer);
        await vercelFailingRun(tracer);
      }),
      await record('openInference', 'OpenInference (an agent, OpenAI calls, tools)', ({ provider }) => openInferenceRun(provider, stub.baseURL)),
      await record('traceloop', 'OpenLLMetry / Traceloop (a workflow, OpenAI calls, a tool)', ({ provider }) => traceloopRun(provider, stub.baseURL)),
      await record('langfuse', 'Langfuse (an agent, a generation, a tool)', ({ provider }) => langfuseRun(provider)),
      await record('mcp', 'MCP (an agent and its client calls)', async ({ provider }) => mcpRun(provider.getTracer('mcp-client'))),
    ];
  } finally {
    await stub.close();
  }
}
