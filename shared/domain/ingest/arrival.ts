import { randomUUID } from 'node:crypto';
import type { Arrival } from '../spans/model.ts';

/** A request arriving now: its time, and a random id of its own (see `Arrival`). */
export const newArrival = (atMs: number): Arrival => ({ atMs, requestId: randomUUID() });
