import type { components } from '../api/schema';

type User = components['schemas']['User'];
type SessionBody = components['schemas']['AuthLoginResponse']['data'];

export interface SessionState {
  /** `unknown` until the first refresh has answered (a reload: is the refresh cookie still good?). */
  status: 'unknown' | 'signed-in' | 'signed-out';
  user?: User;
}

/**
 * The signed-in user. The access token lives in this module's memory only; what keeps a user signed
 * in across reloads is the refresh token, in a cookie scripts cannot read (HttpOnly), which
 * `POST /api/auth/refresh` exchanges for a new access token.
 */
function createSession() {
  let state: SessionState = { status: 'unknown' };
  let accessToken: string | undefined;
  let refreshing: Promise<boolean> | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();

  const set = (next: SessionState) => {
    state = next;
    listeners.forEach((listener) => listener());
  };

  function accept(body: SessionBody) {
    accessToken = body.accessToken;
    clearTimeout(expiryTimer);
    // Refresh a minute before the access token expires, so a page left open keeps working.
    expiryTimer = setTimeout(() => void refresh(), Math.max(body.expiresIn - 60, 30) * 1000);
    set({ status: 'signed-in', user: body.user });
  }

  async function exchange(): Promise<boolean> {
    const res = await fetch('/api/auth/refresh', { method: 'POST', credentials: 'same-origin' });
    if (!res.ok) {
      accessToken = undefined;
      set({ status: 'signed-out' });
      return false;
    }
    accept(((await res.json()) as { data: SessionBody }).data);
    return true;
  }

  /**
   * One refresh at a time, across this browser's tabs too (Web Locks): a refresh token works once,
   * and a second tab sending the same token would look like a stolen one and end the sign-in.
   */
  function refresh(): Promise<boolean> {
    if (refreshing) return refreshing;
    const locked = (navigator.locks ? navigator.locks.request('aos-refresh', exchange) : exchange()) as Promise<boolean>;
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
    /** The API refused the credential: forget it, so the pages send the visitor to sign in. */
    signedOut() {
      accessToken = undefined;
      clearTimeout(expiryTimer);
      set({ status: 'signed-out' });
    },
    async signOut() {
      await fetch('/api/auth/logout', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
      this.signedOut();
    },
  };
}

export const session = createSession();
