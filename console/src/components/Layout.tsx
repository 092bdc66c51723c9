import { useEffect, useSyncExternalStore } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { session } from '../auth/session';
import { Loading } from './ui';

export const useSession = () => useSyncExternalStore(session.subscribe, session.getState);

/** Where a visitor who must sign in first comes back to. */
export const signInPath = (location: { pathname: string; search: string }) => `/login?next=${encodeURIComponent(location.pathname + location.search)}`;

/** The signed-in part of the console: a visitor without a sign-in goes to sign in, then back here. */
export function RequireSignIn() {
  const state = useSession();
  const location = useLocation();
  useEffect(() => {
    if (state.status === 'unknown') void session.refresh();
  }, [state.status]);
  if (state.status === 'unknown') return <Loading label="Signing you in" />;
  if (state.status === 'signed-out') return <Navigate to={signInPath(location)} replace />;
  return <Outlet />;
}

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/traces', label: 'Traces' },
  { to: '/search', label: 'Search' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/agents', label: 'Agents' },
  { to: '/alerts', label: 'Alerts' },
  { to: '/experiments', label: 'Experiments' },
  { to: '/exports', label: 'Exports' },
  { to: '/settings', label: 'Settings' },
];

export function Layout() {
  const { user } = useSession();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Agent Observability</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="user">
          <span>{user?.email}</span>
          <button type="button" className="link" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
