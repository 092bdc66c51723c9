import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, unwrap } from '../api/client';
import { CopyButton } from './CopyButton';
import { ErrorMessage } from './ui';

/**
 * What a tenant without data sees: how to send its first trace, with a key made here, and the
 * page moves on by itself (`onFirstTrace`) as soon as a trace lands.
 */
export function FirstRun({ onFirstTrace }: { onFirstTrace: (traceId: string) => void }) {
  const origin = window.location.origin;
  const key = useMutation({ mutationFn: async () => unwrap(await api.POST('/keys', { body: { name: 'First trace' } })).data });
  const latest = useQuery({
    queryKey: ['first-run', 'latest-trace'],
    queryFn: async () => unwrap(await api.GET('/spans/traces', { params: { query: { limit: '1' } } })).data,
    refetchInterval: 2000,
    staleTime: 0,
  });
  const arrived = latest.data?.[0]?.traceId;
  useEffect(() => {
    if (arrived) onFirstTrace(arrived);
  }, [arrived, onFirstTrace]);

  const apiKey = key.data?.key ?? '<your API key>';
  const curl = [
    `NOW=$(date +%s000)`,
    `curl -s -X POST ${origin}/api/spans -H "x-api-key: ${apiKey}" -H 'Content-Type: application/json' -d '{"spans":[`,
    `  {"traceId":"first-trace","spanId":"root","name":"answer ticket","kind":"agent","agentName":"support-bot","startTime":'$NOW',"endTime":'$((NOW+1200))',"input":"Where is my order?","output":"It ships tomorrow."},`,
    `  {"traceId":"first-trace","spanId":"llm","parentSpanId":"root","name":"chat","kind":"llm","agentName":"support-bot","model":"gpt-4o-mini","inputTokens":420,"outputTokens":60,"startTime":'$((NOW+100))',"endTime":'$((NOW+1000))'}]}'`,
  ].join('\n');
  const otel = [
    `export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${origin}/api/v1/traces`,
    `export OTEL_EXPORTER_OTLP_HEADERS="x-api-key=${apiKey}"`,
    `export OTEL_SERVICE_NAME=support-bot`,
  ].join('\n');

  return (
    <section className="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">Send your first trace</h2>
      <ol>
        <li>
          <p>Make an API key for your agents. Its secret is shown once: keep it somewhere safe.</p>
          {key.data ? (
            <p className="secret">
              <code data-testid="new-key">{key.data.key}</code> <CopyButton text={key.data.key} label="Copy key" />
            </p>
          ) : (
            <button type="button" className="primary" onClick={() => key.mutate()} disabled={key.isPending}>
              Create an API key
            </button>
          )}
          <ErrorMessage error={key.error} />
        </li>
        <li>
          <p>Send a trace with curl…</p>
          <pre className="code" tabIndex={0}>
            {curl}
          </pre>
          <CopyButton text={curl} label="Copy command" />
        </li>
        <li>
          <p>…or point any OpenTelemetry SDK at this service (GenAI attributes become agents, models, tokens and cost):</p>
          <pre className="code" tabIndex={0}>
            {otel}
          </pre>
          <CopyButton text={otel} label="Copy variables" />
        </li>
      </ol>
      <p className="muted" role="status" aria-live="polite">
        Waiting for your first trace… this page moves on as soon as it arrives.
      </p>
      <ErrorMessage error={latest.error} />
    </section>
  );
}
