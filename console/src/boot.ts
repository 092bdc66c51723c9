import { BOOT_DATA_ID, type BootData } from './boot-data';

/*
 * The boot script. index.html loads it beside the console's code, and it runs as soon as it arrives,
 * while that code is still loading and being parsed: it starts at once what the landing page would
 * otherwise ask for one after another once the code ran, namely
 * - the page's own code (its route chunk and what that imports, as modulepreload links: the same
 *   links the router's import looks for, so nothing loads twice), and
 * - on a page that needs a sign-in, the refresh of the sign-in, whose answer the console takes
 *   (session.ts) instead of sending its own. A refresh token works once, so if the console has sent
 *   its own already (`aosBootRefresh` is null), this sends none;
 * - then, on a page that names its first API request and opened without a query, that request, with
 *   the refresh's access token, whose answer the page takes (api/boot-request.ts) instead of asking
 *   once its code has run. The token stays in this closure, as the console keeps it in its memory.
 * It imports nothing the console's code imports, so it is a file of its own; what it knows comes from
 * the build in the page's JSON (boot-plugin.ts).
 */
const boot = JSON.parse(document.getElementById(BOOT_DATA_ID)?.textContent ?? '{"pages":[]}') as BootData;
const landing = boot.pages.find((page) => new RegExp(page.pattern, 'i').test(window.location.pathname));

/** Starts loading the landing page's chunks and their styles. */
function preloadLanding() {
  for (const file of landing?.files ?? []) {
    const link = document.createElement('link');
    if (file.endsWith('.css')) {
      link.rel = 'preload';
      link.as = 'style';
    } else {
      link.rel = 'modulepreload';
    }
    link.href = file;
    document.head.append(link);
  }
}

// A path no page has is answered by the signed-in console ("not found"), so it needs the sign-in too.
if (boot.refresh && landing?.signedIn !== false && window.aosBootRefresh === undefined) {
  const { url, lock } = boot.refresh;
  // The refresh is sent before the chunks are asked for: over HTTP/1.1 (npm start) a browser opens six
  // connections to a host, and the chunks would take them all while the refresh waited.
  const send = () => {
    const answer = fetch(url, { method: 'POST', credentials: 'same-origin' });
    preloadLanding();
    return answer;
  };
  // Under the lock the console takes for its own refreshes, so another tab's refresh is never sent beside it.
  const sendLocked = async (): Promise<Response> => (navigator.locks ? await navigator.locks.request(lock, send) : send());
  const refresh = sendLocked();
  // The console awaits this and sees a failure; if its code never runs, the failure is not an unhandled rejection.
  refresh.catch(() => {});
  const firstRequest = landing?.firstRequest;
  if (firstRequest && window.location.search === '') {
    // Read from a copy, registered before the console can read the refresh's own body.
    const answer = refresh
      .then((res) => (res.ok ? (res.clone().json() as Promise<{ data: { accessToken: string } }>) : undefined))
      .then((body) => (body ? fetch(firstRequest, { headers: { Authorization: `Bearer ${body.data.accessToken}` } }) : undefined));
    answer.catch(() => {});
    window.aosBootRequest = { url: firstRequest, answer };
  }
  window.aosBootRefresh = refresh;
} else {
  preloadLanding();
}
