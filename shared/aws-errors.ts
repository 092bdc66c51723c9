import { isThrottlingError, isTransientError } from '@smithy/core/retry';

/**
 * Whether a failed AWS call may pass when tried again later: throttling, a transient or server-side
 * failure, the network, or the deadline. A refusal of the request itself (access denied, a missing
 * resource, a validation error) is not.
 */
export function mayPassLater(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return true;
  const failure = err as Error & { $fault?: string; $metadata?: object };
  return failure.$fault === 'server' || isThrottlingError(failure as never) || isTransientError(failure as never);
}
