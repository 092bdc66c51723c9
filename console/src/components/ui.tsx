import { type ReactNode, useEffect } from 'react';
import { Link, useRouteError } from 'react-router';
import { ApiError } from '../api/client';

export { formatCost } from './cost';
export { formatDuration } from './duration';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}…
    </p>
  );
}

/** An API error as the API put it (the envelope's message), next to what caused it. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <p className="error" role="alert">
      {message}
      {code && code !== 'VALIDATION_ERROR' ? <span className="muted"> ({code})</span> : null}
    </p>
  );
}

export function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}

/** What a page shows when drawing it failed: the router's own screen is meant for developers. */
export function PageError() {
  const error = useRouteError();
  return (
    <section>
      <h1>This page could not be shown</h1>
      <p role="alert">{error instanceof Error ? error.message : 'Something went wrong while drawing it.'}</p>
      <p>
        <a href={window.location.pathname + window.location.search}>Load it again</a> or go <Link to="/">back to the overview</Link>.
      </p>
    </section>
  );
}

export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Agent Observability`;
  }, [title]);
  return (
    <div className="page-title">
      <h1>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </div>
  );
}

export function Badge({ tone, children }: { tone: 'ok' | 'error' | 'warn' | 'info' | 'muted'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export const statusTone = (status: string): 'ok' | 'error' | 'warn' | 'info' | 'muted' =>
  (
    ({
      ok: 'ok',
      error: 'error',
      open: 'error',
      acknowledged: 'warn',
      resolved: 'ok',
      running: 'info',
      queued: 'info',
      succeeded: 'ok',
      failed: 'error',
      draft: 'muted',
      paused: 'warn',
      stopped: 'muted',
      critical: 'error',
      high: 'error',
      warning: 'warn',
      low: 'info',
      passing: 'ok',
      failing: 'error',
    }) as Record<string, 'ok' | 'error' | 'warn' | 'info' | 'muted'>
  )[status] ?? 'muted';

export const formatNumber = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'));

/** A file's size: bytes, KB, MB or GB (powers of 1,024). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export const formatPercent = (ratio: number | null | undefined): string =>
  ratio === null || ratio === undefined ? '—' : `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)}%`;

/** Made once: `toLocaleString` with options makes a formatter per call, a tenth of a millisecond each, in every row of a list. */
const TIME_FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  // The formatter throws on an invalid date, where toLocaleString said "Invalid Date": show what came.
  return Number.isNaN(date.getTime()) ? iso : TIME_FORMAT.format(date);
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
