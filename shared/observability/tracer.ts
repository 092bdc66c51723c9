import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE } from './logger.ts';

/**
 * X-Ray tracing through Powertools' Tracer: on Lambda (active tracing, set by infra/aws) each handler
 * is a segment and every AWS SDK client call a subsegment. Outside Lambda (`npm start`, tests) the
 * Tracer disables itself, and `traced` hands clients back untouched.
 */
export const tracer = new Tracer({ serviceName: SERVICE });

/** The SDK client, its calls recorded as X-Ray subsegments of the invocation. */
export const traced = <C extends object>(client: C): C => tracer.captureAWSv3Client(client);
