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

/** Where to go after signing in: the page the visitor came from, if it is one of ours. */
export function nextPath(search: URLSearchParams): string {
  const next = search.get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}
