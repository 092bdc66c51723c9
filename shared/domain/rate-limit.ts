/** Fixed one-minute windows (spec, Limits: requests per minute). */
export const WINDOW_SECONDS = 60;

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  reset: number;
  allowed: boolean;
}

export const windowStart = (nowMs: number): number => Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;

export function decide(hits: number, limit: number, windowStartSeconds: number): RateDecision {
  return {
    limit,
    remaining: Math.max(0, limit - hits),
    reset: windowStartSeconds + WINDOW_SECONDS,
    allowed: hits <= limit,
  };
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.reset),
  };
}
