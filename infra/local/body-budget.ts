import type { IncomingMessage } from 'node:http';
import { Semaphore, withTimeout } from 'async-mutex';
import { TELEMETRY_MAX_BODY_BYTES } from '#shared/schemas/route-schemas.ts';
import { MAX_BODY_BYTES } from './api-gateway.ts';

/**
 * How many bytes of request bodies the local server handles at once. On AWS each Lambda instance has
 * memory of its own; locally every request is handled in the one process, whose heap `npm start`
 * caps at 256 MB, and a request's body is held several times over while it is handled (the bytes,
 * the event's string, the parsed JSON, the queue's messages). Forty-three requests of 70 traces of
 * 64 KB of text, sent at once, took the heap past its limit within seconds and the process died with
 * none of them answered (2026-11-30). Requests past the budget wait, unread (their clients are held
 * back by TCP), until earlier ones have been answered.
 */
export const BODY_BUDGET_BYTES = 16 * 1024 * 1024;

/** How long a request waits for the budget before it is answered 503, to retry later. */
export const BODY_WAIT_MS = 60_000;

/** The budget's unit: weights counted in bytes would make async-mutex's dispatch loop walk every byte. */
const UNIT_BYTES = 64 * 1024;

/** Bodies of one unit or less (the console's requests, small SDK batches) go ahead of larger ones waiting: a burst of large batches does not hold them back. */
const SMALL_BODY_PRIORITY = 1;

/** The budget had no room for a request: it waited `BODY_WAIT_MS`, or the server began to stop while it waited. */
export class BodyBudgetRefusal extends Error {}

export interface BodyBudget {
  /** Waits until the request's body fits the budget; the release gives its share back (a no-op for a request without a body). */
  admit(req: IncomingMessage): Promise<() => void>;
  /** The server is stopping: refuses the requests waiting, and from now on any that would have to wait. */
  refuseWaiting(): void;
}

export function bodyBudget(budgetBytes = BODY_BUDGET_BYTES, waitMs = BODY_WAIT_MS): BodyBudget {
  const units = Math.max(1, Math.floor(budgetBytes / UNIT_BYTES));
  const stopping = new BodyBudgetRefusal('the server is stopping');
  const semaphore = withTimeout(new Semaphore(units, stopping), waitMs, new BodyBudgetRefusal('waited too long for the body budget'));
  let refusing = false;
  return {
    async admit(req) {
      const bytes = bodyBytesToHold(req);
      if (bytes === 0) return () => undefined;
      const weight = Math.min(units, Math.ceil(bytes / UNIT_BYTES));
      if (refusing && semaphore.getValue() < weight) throw stopping;
      const [, release] = await semaphore.acquire(weight, weight === 1 ? SMALL_BODY_PRIORITY : 0);
      return release;
    },
    refuseWaiting() {
      refusing = true;
      semaphore.cancel();
    },
  };
}

/**
 * What handling the body will hold: its declared length, or for a body in chunks of unknown length
 * the most a route takes (a larger one is refused once read, holding up to API Gateway's 10 MB while
 * it is), and for a gzip body the most a route takes decompressed too; nothing for a body declared
 * past API Gateway's limit, which is read and dropped (a 413).
 */
function bodyBytesToHold(req: IncomingMessage): number {
  const declared = req.headers['content-length'];
  const length = declared !== undefined ? Number(declared) : req.headers['transfer-encoding'] ? TELEMETRY_MAX_BODY_BYTES : 0;
  if (!(length > 0 && length <= MAX_BODY_BYTES)) return 0;
  const compressed = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() !== 'identity';
  return compressed ? Math.max(length, TELEMETRY_MAX_BODY_BYTES) : length;
}
