/**
 * The service's typed errors. Each maps to exactly one of the spec's error codes; the HTTP layer maps
 * by `instanceof`, and anything that is not an `AppError` becomes a generic 500 with no detail.
 */
export const ERROR_CODES = ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED', 'INTERNAL_ERROR'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  /** Ids the message refers to, for a client to link (answered as `error.details`). */
  readonly details?: Record<string, string>;
}

export class ValidationError extends AppError {
  readonly code = 'VALIDATION_ERROR';
  readonly status = 400;
  constructor(
    message: string,
    override readonly details?: Record<string, string>,
  ) {
    super(message);
  }
}

export class UnauthorizedError extends AppError {
  readonly code = 'UNAUTHORIZED';
  readonly status = 401;
  constructor(message = 'Missing or invalid authentication') {
    super(message);
  }
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  readonly status = 404;
  constructor(what = 'Resource') {
    super(`${what} not found`);
  }
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  readonly status = 429;
  constructor(
    readonly retryAfterSeconds: number,
    message = `Rate limit exceeded; retry after ${retryAfterSeconds} s`,
  ) {
    super(message);
  }
}

/**
 * A dependency is down (the queue refused the data): nothing was accepted and the client should retry.
 * The spec has no code of its own for this, so it answers INTERNAL_ERROR with status 503.
 */
export class ServiceUnavailableError extends AppError {
  readonly code = 'INTERNAL_ERROR';
  readonly status = 503;
  constructor(
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super('The service could not take this request right now; retry it (a retry never duplicates data).', options);
  }
}
