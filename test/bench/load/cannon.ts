import autocannon from 'autocannon';

/** What one autocannon run measured. */
export interface StreamStats {
  /** Responses received. */
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** Connection errors other than timeouts. */
  connectionErrors: number;
  timeouts: number;
}

export interface Fired {
  stats: StreamStats;
  /** The run was cut short at its deadline, with requests possibly in flight. */
  stoppedAtDeadline: boolean;
}

/** Per-connection state; autocannon calls setupRequest and onResponse of one request with the same object. */
export type RequestContext = Record<string, unknown>;

function statsOf(result: autocannon.Result): StreamStats {
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count = 0 }]) => [status, count]));
  const requests = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  return {
    requests,
    seconds: result.duration,
    requestsPerSecond: requests / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statuses,
    connectionErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
  };
}

/**
 * Runs autocannon to the end of its `amount` or `duration`, or stops it at `deadlineMs`. Latencies
 * are recorded as measured: for a rate-limited run, autocannon's coordinated-omission correction
 * assumes an interval of 1 / (requests per second per connection) milliseconds, which back-fills the
 * histogram with made-up samples.
 */
export function fire(options: autocannon.Options, deadlineMs?: number): Promise<Fired> {
  return new Promise((resolve, reject) => {
    let stoppedAtDeadline = false;
    let timer: NodeJS.Timeout | undefined;
    const rateLimited = options.overallRate !== undefined || options.connectionRate !== undefined;
    const instance = autocannon({ timeout: 30, ...options, ...(rateLimited && { ignoreCoordinatedOmission: true }) }, (err, result) => {
      clearTimeout(timer);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve({ stats: statsOf(result), stoppedAtDeadline });
    });
    if (deadlineMs !== undefined) {
      timer = setTimeout(() => {
        stoppedAtDeadline = true;
        instance.stop();
      }, deadlineMs);
    }
  });
}

/** A response header, whatever its case. */
export const headerOf = (headers: Record<string, unknown> | undefined, name: string): string | undefined => {
  const key = Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : String(headers![key]);
};

/** The target's origin (what autocannon connects to) and the full path of an API path. */
export function endpointOf(baseUrl: string) {
  const url = new URL(baseUrl);
  return { origin: url.origin, path: (apiPath: string) => `${url.pathname}${apiPath}` };
}
