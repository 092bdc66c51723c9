import * as z from 'zod/mini';
import { isStorableNumber, PROTO_KEY_STAND_IN } from '../domain/spans/model.ts';
import { agentId, isIsoTime, isoTimeMs } from './common.ts';

/** The fields the telemetry records (spans, signals, logs), their queries and the agent schemas share. */

export const text = (min: number, max: number) => z.string().check(z.trim(), z.minLength(min), z.maxLength(max));
/** An id of a trace or span. Dots alone (`.`, `..`) are path segments a browser or proxy resolves: no URL could name such a trace. */
export const telemetryId = z
  .string()
  .check(z.trim(), z.minLength(1), z.maxLength(128), z.regex(/^(?!\.+$)[\w.:-]+$/, 'must be 1–128 letters, digits or . _ : -, not dots alone'));
export const shortText = z.string().check(z.maxLength(256));
export const storable = z.number().check(z.refine(isStorableNumber, 'must be 0 or of magnitude 1e-130 to 2^53'));

/**
 * Epoch milliseconds before this (1973-03-03) are refused as a number: they are almost surely epoch
 * seconds (today's are about 1.8e9), which as milliseconds fall in January 1970, out of every list.
 */
const LEAST_EPOCH_MS = 1e11;

/** ISO 8601 text (one without an offset is UTC) or epoch milliseconds, as epoch milliseconds. */
export const instant = z.pipe(
  z.union([
    z.number().check(
      z.lte(8.64e15),
      z.refine(
        (ms: number) => ms >= LEAST_EPOCH_MS,
        'must be epoch milliseconds; this is before 1973 as milliseconds: epoch seconds? (multiply them by 1000) or send ISO 8601',
      ),
    ),
    z.string().check(z.maxLength(40), z.refine(isIsoTime, 'must be an ISO 8601 time (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss.sssZ) or epoch milliseconds')),
  ]),
  z.transform((v: number | string) => (typeof v === 'number' ? Math.floor(v) : isoTimeMs(v))),
);

/**
 * Metadata or attributes, each key kept: zod leaves a key named `__proto__` (JSON allows it) out of
 * the record it builds, since assigning it would set the record's prototype, so such a key was lost
 * without a word. It is renamed first, as the ingest messages name one at any depth.
 */
export const attributes = z.pipe(
  z.transform((value: unknown) =>
    value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')
      ? Object.fromEntries(Object.entries(value).map(([key, v]) => [key === '__proto__' ? PROTO_KEY_STAND_IN : key, v]))
      : value,
  ),
  z
    .record(z.string().check(z.maxLength(256)), z.unknown())
    .check(z.refine((o: Record<string, unknown>) => Object.keys(o).length <= 256, 'at most 256 attributes')),
);

export const traceIdParams = z.object({ traceId: telemetryId });
export const agentIdParams = z.object({ agentId });
