import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE } from './logger.ts';

/**
 * The service's own business metrics, through Powertools' Metrics in CloudWatch's embedded metric
 * format (EMF): written to stdout with the logs, read into CloudWatch by Lambda, so publishing costs
 * no API call. Namespace `AgentObservability`, dimension `service`.
 */
export const metrics = new Metrics({ namespace: 'AgentObservability', serviceName: SERVICE });

export const METRIC = {
  /** Spans a worker stored. */
  spansIngested: 'SpansIngested',
  /** Alerts opened (an occurrence of an alert already open is counted on it, not here). */
  alertsRaised: 'AlertsRaised',
  /** Unfinished traces the service closed after TRACE_QUIET_MS without a span (their root was lost). */
  tracesClosed: 'TracesClosed',
  /** E-mails and SMS handed to SES or SNS (or the local outbox). */
  notificationsSent: 'NotificationsSent',
  /** Traces judged for the LLM alert types, one call per type. */
  judgeCalls: 'JudgeCalls',
  /** What the judge's model calls cost at list price, in US dollars. */
  judgeCost: 'JudgeCostUsd',
} as const;

/** Adds to a count metric of this invocation; nothing is added for 0. */
export function count(name: (typeof METRIC)[keyof typeof METRIC], value: number): void {
  if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
}

/** Adds a dollar amount (EMF has no currency unit: `None`). */
export function dollars(name: typeof METRIC.judgeCost, value: number): void {
  if (value > 0) metrics.addMetric(name, MetricUnit.NoUnit, value);
}

const onLambda = () => process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/**
 * Ends the invocation's metrics: on Lambda they are written as one EMF line when there are any (Powertools
 * would warn on every invocation that adds none); elsewhere (`npm start`, tests) they are dropped.
 */
export function publishMetrics(): void {
  if (!metrics.hasStoredMetrics()) return;
  if (onLambda()) metrics.publishStoredMetrics();
  else metrics.clearMetrics();
}
