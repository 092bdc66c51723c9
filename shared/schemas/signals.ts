import * as z from 'zod/mini';
import { attributes, instant, storable, telemetryId, text } from './fields.ts';

export const MAX_SIGNALS_PER_REQUEST = 1000;

export const signalBody = z.object({
  signalName: text(1, 200),
  value: storable,
  traceId: z.nullish(telemetryId),
  spanId: z.nullish(telemetryId),
  agentName: z.nullish(text(1, 200)),
  metadata: z.optional(attributes),
  timestamp: z.optional(instant),
});
export const signalsBatchBody = z.object({
  signals: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_SIGNALS_PER_REQUEST, `at most ${MAX_SIGNALS_PER_REQUEST} signals per request`)),
});
