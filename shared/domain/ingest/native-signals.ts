import type * as z from 'zod/mini';
import { signalBody } from '../../schemas/signals.ts';
import type { CanonicalSignal } from '../spans/model.ts';
import { asAttributes, parseEach } from './native.ts';

export function signalFromNative(receivedAtMs: number) {
  return (s: z.infer<typeof signalBody>): CanonicalSignal => ({
    signalName: s.signalName,
    value: s.value,
    traceId: s.traceId ?? null,
    spanId: s.spanId ?? null,
    agentName: s.agentName ?? null,
    metadata: asAttributes(s.metadata),
    timestampMs: s.timestamp ?? receivedAtMs,
  });
}

export const parseSignals = (raw: readonly unknown[], receivedAtMs: number) => parseEach(raw, signalBody, signalFromNative(receivedAtMs));
