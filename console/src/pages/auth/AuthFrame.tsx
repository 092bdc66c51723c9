import { type ReactNode, useEffect } from 'react';

export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Agent Observability`;
  }, [title]);
  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand">Agent Observability</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/**
 * Where to go after signing in: the page the visitor came from, if it is one of ours. Read as the
 * browser would read it: `/\\host` and a path with a tab in it (`/\t/host`) lead to another host,
 * which the router refuses to navigate to (and showed its error page).
 */
export function nextPath(search: URLSearchParams): string {
  const next = search.get('next');
  if (!next?.startsWith('/')) return '/';
  try {
    const url = new URL(next, window.location.origin);
    return url.origin === window.location.origin ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    // Text that is no URL at all (`//a b`): the overview.
    return '/';
  }
}
