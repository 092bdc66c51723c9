import * as z from 'zod/mini';
import { LOG_LEVELS } from '../domain/spans/model.ts';
import { attributes, instant, telemetryId, text } from './fields.ts';

export const MAX_LOGS_PER_REQUEST = 1000;

export const logBody = z.object({
  timestamp: instant,
  level: z.enum(LOG_LEVELS),
  // Longer ones are cut to 32 KB with a marker (`fitTelemetry`), as span inputs are; the body's size bounds them.
  message: z.string().check(z.minLength(1)),
  eventName: z.nullish(text(1, 256)),
  traceId: z.nullish(telemetryId),
  spanId: z.nullish(telemetryId),
  agentName: z.nullish(text(1, 200)),
  attributes: z.optional(attributes),
});
export const logsBatchBody = z.object({
  logs: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_LOGS_PER_REQUEST, `at most ${MAX_LOGS_PER_REQUEST} logs per request`)),
});
