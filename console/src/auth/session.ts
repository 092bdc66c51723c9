import type { components } from '../api/schema';
import { REFRESH_REQUEST } from './refresh-request';

type User = components['schemas']['User'];
type SessionBody = components['schemas']['AuthLoginResponse']['data'];

export interface SessionState {
  /** `unknown` until the first refresh has answered (a reload: is the refresh cookie still good?). */
  status: 'unknown' | 'signed-in' | 'signed-out';
  user?: User;
}

/** A new access token; the user too when the answer carries it. */
export interface Renewed {
  accessToken: string;
  expiresIn: number;
  user?: User;
}

/** How a sign-in is renewed and ended: by the service's refresh cookie, or by the hosted provider it was made with. */
export interface Renewal {
  /** A new access token, or undefined when the sign-in is over (the visitor signs in again). */
  renew(): Promise<Renewed | undefined>;
  /** Ends the sign-in; true when the page is leaving for the provider to end its own session there. */
  end(): Promise<boolean>;
}

/** The new sign-in in an answer of `POST /auth/refresh`, or undefined when it refused the cookie. */
const renewedBy = async (res: Response): Promise<Renewed | undefined> => (res.ok ? ((await res.json()) as { data: SessionBody }).data : undefined);

/** How many times a refresh is sent again after an answer that says nothing of the sign-in (`deferralMs`). */
const REFRESH_DEFERRALS = 4;

/**
 * How long to wait before sending a refresh again after this answer, or undefined when the answer
 * decides: too many requests (429: the sign-in routes' limit is per client address, and each page load
 * spends one) or the service unavailable for a moment (5xx) refused nothing, and the cookie is still
 * good. What Retry-After asks, within 1 to 60 s.
 */
function deferralMs(res: Response, attempt: number): number | undefined {
  if (res.status !== 429 && res.status < 500) return undefined;
  const asked = Number(res.headers.get('Retry-After'));
  return Math.min(60, Math.max(1, asked > 0 ? asked : 2 ** attempt)) * 1000;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer to a refresh, sent again while the answers say nothing of the sign-in (under the caller's lock). */
async function refreshAnswer(): Promise<Response> {
  const send = () => fetch(REFRESH_REQUEST.url, { method: 'POST', credentials: 'same-origin' });
  let res = await send();
  for (let attempt = 0; attempt < REFRESH_DEFERRALS; attempt++) {
    const wait = deferralMs(res, attempt);
    if (wait === undefined) break;
    await pause(wait);
    res = await send();
  }
  return res;
}

/**
 * The refresh index.html's boot script sent before this code loaded (boot.ts), taken once. Once this
 * has run, a boot script that has not run yet sends none: a refresh token works once, and two
 * requests with the same one would look like a stolen token and end the sign-in.
 */
function takeBootRefresh(): Promise<Response> | undefined {
  const sent = window.aosBootRefresh ?? undefined;
  window.aosBootRefresh = null;
  return sent;
}

/** The service's own sign-in: the refresh token is in a cookie scripts cannot read (HttpOnly). */
const cookieRenewal: Renewal = {
  async renew() {
    return renewedBy(await refreshAnswer());
  },
  async end() {
    await fetch('/api/auth/logout', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
    return false;
  },
};

/**
 * The signed-in user. The access token lives in this module's memory only. A password sign-in stays
 * across reloads through the refresh token in a cookie scripts cannot read (HttpOnly), which
 * `POST /api/auth/refresh` exchanges for a new access token; a hosted sign-in renews with its
 * provider (auth/hosted.ts).
 */
function createSession() {
  let state: SessionState = { status: 'unknown' };
  let accessToken: string | undefined;
  let renewal = cookieRenewal;
  let refreshing: Promise<boolean> | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();

  const set = (next: SessionState) => {
    state = next;
    for (const listener of listeners) listener();
  };

  function accept(body: Renewed & { user: User }, by: Renewal = cookieRenewal) {
    renewal = by;
    renewed(body);
  }

  function renewed(body: Renewed) {
    accessToken = body.accessToken;
    clearTimeout(expiryTimer);
    // Refresh a minute before the access token expires, so a page left open keeps working.
    expiryTimer = setTimeout(() => void refresh(), Math.max(body.expiresIn - 60, 30) * 1000);
    set({ status: 'signed-in', user: body.user ?? state.user });
  }

  function forget() {
    accessToken = undefined;
    renewal = cookieRenewal;
    clearTimeout(expiryTimer);
  }

  async function exchange(renew: () => Promise<Renewed | undefined>): Promise<boolean> {
    const body = await renew();
    if (!body) {
      forget();
      set({ status: 'signed-out' });
      return false;
    }
    renewed(body);
    return true;
  }

  /**
   * One refresh at a time, across this browser's tabs too (Web Locks): a refresh token works once,
   * and a second tab sending the same token would look like a stolen one and end the sign-in.
   */
  function refresh(): Promise<boolean> {
    if (refreshing) return refreshing;
    const renew = () => exchange(() => renewal.renew());
    const renewLocked = () => (navigator.locks ? navigator.locks.request(REFRESH_REQUEST.lock, renew) : renew()) as Promise<boolean>;
    // A page load's first refresh may be the boot script's, sent under the lock before this code ran: its
    // answer is this refresh's. Waiting for the lock to read it would wait on the boot script's own hold.
    // Refused for the moment (`deferralMs`), it is sent again from here, under the lock.
    const boot = takeBootRefresh();
    const locked = boot
      ? boot.then(async (res) => {
          const wait = deferralMs(res, 0);
          if (wait === undefined) return exchange(() => renewedBy(res));
          await pause(wait);
          return renewLocked();
        })
      : renewLocked();
    const pending = locked
      .catch(() => false)
      .finally(() => {
        refreshing = undefined;
      });
    refreshing = pending;
    return pending;
  }

  return {
    getState: () => state,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    accessToken: () => accessToken,
    accept,
    refresh,
    /** Resolves once no refresh is under way (at once when none is); it sends none. */
    settled: (): Promise<void> => refreshing?.then(() => undefined) ?? Promise.resolve(),
    /** The API refused the credential: forget it, so the pages send the visitor to sign in. */
    signedOut() {
      forget();
      set({ status: 'signed-out' });
    },
    async signOut() {
      // Leaving for the provider's logout: the page goes, and the provider sends the visitor back to sign in.
      if (await renewal.end()) return;
      this.signedOut();
    },
  };
}

export const session = createSession();
