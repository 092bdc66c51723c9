import type * as z from 'zod/mini';
import { logBody } from '../../schemas/logs.ts';
import type { CanonicalLog } from '../spans/model.ts';
import { asAttributes, parseEach } from './native.ts';

export function logFromNative(l: z.infer<typeof logBody>): CanonicalLog {
  return {
    timestampMs: l.timestamp,
    level: l.level,
    message: l.message,
    eventName: l.eventName ?? null,
    traceId: l.traceId ?? null,
    spanId: l.spanId ?? null,
    agentName: l.agentName ?? null,
    attributes: asAttributes(l.attributes),
  };
}

export const parseLogs = (raw: readonly unknown[]) => parseEach(raw, logBody, logFromNative);
