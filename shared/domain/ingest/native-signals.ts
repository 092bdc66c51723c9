import type * as z from 'zod/mini';
import { signalBody } from '../../schemas/signals.ts';
import type { CanonicalSignal } from '../spans/model.ts';
import { asAttributes, parseEach } from './native.ts';

/**
 * A signal as stored. One sent without a timestamp takes the time it arrived, and those of one batch a
 * millisecond apart in their order: a signal is keyed by its content, so three identical thumbs-ups in
 * one batch were stored as one while the answer counted three.
 */
export function signalFromNative(receivedAtMs: number) {
  return (s: z.infer<typeof signalBody>, index = 0): CanonicalSignal => ({
    signalName: s.signalName,
    value: s.value,
    traceId: s.traceId ?? null,
    spanId: s.spanId ?? null,
    agentName: s.agentName ?? null,
    metadata: asAttributes(s.metadata),
    timestampMs: s.timestamp ?? receivedAtMs + index,
  });
}

export const parseSignals = (raw: readonly unknown[], receivedAtMs: number) => parseEach(raw, signalBody, signalFromNative(receivedAtMs));
