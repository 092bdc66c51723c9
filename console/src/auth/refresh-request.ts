/**
 * The request that renews a password sign-in from its refresh cookie, and the Web Lock that keeps it
 * to one at a time across a browser's tabs. index.html's boot script sends it too, before the console's
 * code has loaded (boot.ts), with these values as the build hands them over (boot-plugin.ts).
 */
export const REFRESH_REQUEST = { url: '/api/auth/refresh', lock: 'aos-refresh' } as const;

declare global {
  interface Window {
    /** The boot script's refresh, its answer to come; null once the console has taken it or sent its own. */
    aosBootRefresh?: Promise<Response> | null;
  }
}
