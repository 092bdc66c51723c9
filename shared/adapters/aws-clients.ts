import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { RetryStrategyV2 } from '@smithy/types';

/**
 * How long a call made while a route answers may take, retries included: a route times out after 10 s
 * (infra/aws/stateless-stack.ts), and one whose call failed must still have time to answer 503.
 * Passed to `client.send` as its abort signal.
 */
export const ROUTE_CALL_DEADLINE_MS = 6000;

export interface CallPolicy {
  /** Attempts in all; the SDK's standard retry mode spaces them with jittered exponential backoff (longer after throttling). */
  attempts: number;
  /** An attempt whose connection stays silent this long is abandoned (a hung endpoint), and retried as a transient failure. */
  attemptTimeoutMs: number;
  /** Instead of the standard strategy's spacing. */
  retryStrategy?: RetryStrategyV2;
}

/** The settings every SDK client of the service is made with; endpoints and credentials come from the environment (`AWS_ENDPOINT_URL_<SERVICE>` locally). */
export function clientSettings({ attempts, attemptTimeoutMs, retryStrategy }: CallPolicy) {
  return {
    maxAttempts: attempts,
    retryMode: 'standard',
    ...(retryStrategy ? { retryStrategy } : {}),
    // HTTP/1.1 for every client, Bedrock Runtime's included (its default handler speaks HTTP/2, which a local stand-in may not).
    requestHandler: new NodeHttpHandler({ connectionTimeout: Math.min(attemptTimeoutMs, 3000), requestTimeout: attemptTimeoutMs }),
  };
}

/** The signal that ends a call, its retries included, after `ms`. */
export const deadline = (ms: number) => ({ abortSignal: AbortSignal.timeout(ms) });
