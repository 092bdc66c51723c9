import { lifecycle } from '../lifecycle.ts';

export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export type AlertAction = 'acknowledge' | 'reopen' | 'resolve';

/** The spec's alert lifecycle: open → acknowledged → resolved; reopen → open. */
export const { transition } = lifecycle<AlertStatus, AlertAction>('alert', {
  acknowledge: { from: ['open'], to: 'acknowledged' },
  reopen: { from: ['acknowledged', 'resolved'], to: 'open' },
  resolve: { from: ['open', 'acknowledged'], to: 'resolved' },
});

/** An alert that can still accumulate occurrences (spec: open or acknowledged). */
export const isActive = (status: AlertStatus): boolean => status !== 'resolved';
