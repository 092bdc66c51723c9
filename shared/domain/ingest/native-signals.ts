import type * as z from 'zod/mini';
import { signalBody } from '../../schemas/signals.ts';
import { type Arrival, arrivalKeyOf, type CanonicalSignal } from '../spans/model.ts';
import { asAttributes, parseEach } from './native.ts';

export function signalFromNative(arrival: Arrival) {
  return (s: z.infer<typeof signalBody>, index: number): CanonicalSignal => ({
    signalName: s.signalName,
    value: s.value,
    traceId: s.traceId ?? null,
    spanId: s.spanId ?? null,
    agentName: s.agentName ?? null,
    metadata: asAttributes(s.metadata),
    timestampMs: s.timestamp ?? arrival.atMs,
    ...(s.timestamp === undefined && { arrivalKey: arrivalKeyOf(arrival, index) }),
  });
}

export const parseSignals = (raw: readonly unknown[], arrival: Arrival) => parseEach(raw, signalBody, signalFromNative(arrival));
