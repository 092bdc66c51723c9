import { session } from './auth/session';
import { firstRequestAt, needsSignIn } from './page-table';

// Imported first by main.tsx: a page that needs a sign-in starts renewing it (the refresh cookie) as
// the code starts, while the page's chunk still loads, not once the page has drawn. RequireSignIn and
// the pages' loaders wait for this refresh rather than send their own. The page's first request
// follows the renewal at once, as the boot script sends it (boot.ts) when that ran before this code
// and sent it already (or when the boot script never runs: `npx vite console`).
if (needsSignIn(window.location.pathname)) {
  const signedIn = session.refresh();
  const firstRequest = firstRequestAt(window.location);
  if (firstRequest && window.aosBootRequest === undefined) {
    const answer = signedIn.then((ok) => (ok ? fetch(firstRequest, { headers: { Authorization: `Bearer ${session.accessToken()}` } }) : undefined));
    answer.catch(() => {});
    window.aosBootRequest = { url: firstRequest, answer };
  }
}
