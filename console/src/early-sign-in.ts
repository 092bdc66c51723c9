import { session } from './auth/session';
import { needsSignIn } from './page-table';

// Imported first by main.tsx: a page that needs a sign-in starts renewing it (the refresh cookie) as
// the code starts, while the page's chunk still loads, not once the page has drawn. RequireSignIn and
// the pages' loaders wait for this refresh rather than send their own.
if (needsSignIn(window.location.pathname)) void session.refresh();
