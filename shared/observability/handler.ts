import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger.ts';
import { publishMetrics } from './metrics.ts';
import { tracer } from './tracer.ts';

/** Publishes the invocation's metrics when it ends, answered or failed (see publishMetrics). */
const metricsPublished = (): MiddlewareObj => ({ after: publishMetrics, onError: publishMetrics });

/**
 * Powertools' middy middlewares every function runs: the invocation as an X-Ray segment (its answer
 * left out: it may hold a token), the Lambda context in every log line (keys appended during the
 * invocation dropped at its end), and the invocation's metrics published.
 */
export const observability = (): MiddlewareObj[] => [
  captureLambdaHandler(tracer, { captureResponse: false }),
  injectLambdaContext(logger, { resetKeys: true }),
  metricsPublished(),
];

/** A queue consumer or scheduled job with the observability middlewares. */
export function instrumented<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  return middy<E, R, Error, Context>(handler).use(observability());
}
