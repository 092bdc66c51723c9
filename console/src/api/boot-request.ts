declare global {
  interface Window {
    /**
     * The landing page's first API request (page-table.ts's `firstRequest`), sent with the access token
     * of the sign-in's renewal as soon as that answered, by the boot script (boot.ts) or, when the
     * console's code ran first, by early-sign-in.ts, while the page's code still loads: its URL and its
     * answer to come (undefined when the renewal failed); null once the page has taken it.
     */
    aosBootRequest?: { url: string; answer: Promise<Response | undefined> } | null;
  }
}

/**
 * The answer to the request at `url`, if it was sent before the page's code ran and nobody took it
 * yet: the page's first query uses it instead of asking again; any later query of the page asks anew.
 */
export function takeBootRequest(url: string): Promise<Response | undefined> | undefined {
  const sent = window.aosBootRequest;
  if (!sent || sent.url !== url) return undefined;
  window.aosBootRequest = null;
  return sent.answer;
}
