import { afterEach, describe, expect, it, vi } from 'vitest';
import { count, dollars, METRIC, metrics, publishMetrics } from '#shared/observability/metrics.ts';

/** What is written to stdout while `act` runs. */
function stdoutOf(act: () => void): string[] {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    act();
  } finally {
    write.mockRestore();
  }
  return lines;
}

afterEach(() => {
  vi.unstubAllEnvs();
  metrics.clearMetrics();
});

describe('business metrics (Powertools Metrics, EMF)', () => {
  it('on Lambda, publishes the invocation’s metrics as one EMF line in the AgentObservability namespace', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'aos-worker-ingest');
    const [line, ...rest] = stdoutOf(() => {
      count(METRIC.spansIngested, 12);
      count(METRIC.alertsRaised, 0);
      dollars(METRIC.judgeCost, 0.0042);
      publishMetrics();
    });
    expect(rest).toEqual([]);
    const emf = JSON.parse(line!) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
    };
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'AgentObservability', Dimensions: [['service']] });
    expect(emf._aws.CloudWatchMetrics[0]!.Metrics).toEqual([
      { Name: 'SpansIngested', Unit: 'Count' },
      { Name: 'JudgeCostUsd', Unit: 'None' },
    ]);
    expect(emf).toMatchObject({ service: 'agent-observability', SpansIngested: 12, JudgeCostUsd: 0.0042 });
  });

  it('writes nothing for an invocation that added no metric (no warning either)', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'aos-http-agents-list');
    const warn = vi.spyOn(console, 'warn');
    expect(stdoutOf(publishMetrics)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('outside Lambda (npm start, tests) drops the metrics instead of writing them', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    expect(
      stdoutOf(() => {
        count(METRIC.notificationsSent, 3);
        publishMetrics();
      }),
    ).toEqual([]);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});
