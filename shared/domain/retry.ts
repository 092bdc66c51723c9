/** A jittered, exponentially growing pause before another try of an optimistic write that lost its race. */
export const backoff = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));
