import { ValidationError } from '../errors.ts';

export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export type AlertAction = 'acknowledge' | 'reopen' | 'resolve';

/** Which states each action leaves from (spec: open → acknowledged → resolved; reopen → open). */
const FROM: Record<AlertAction, readonly AlertStatus[]> = {
  acknowledge: ['open'],
  reopen: ['acknowledged', 'resolved'],
  resolve: ['open', 'acknowledged'],
};
const TO: Record<AlertAction, AlertStatus> = { acknowledge: 'acknowledged', reopen: 'open', resolve: 'resolved' };

/** The state an action leads to, or a 400 that names the current state. */
export function transition(current: AlertStatus, action: AlertAction): AlertStatus {
  if (!FROM[action].includes(current)) {
    throw new ValidationError(`Cannot ${action} an alert that is ${current}; ${action} applies to ${FROM[action].join(' or ')} alerts`);
  }
  return TO[action];
}

/** An alert that can still accumulate occurrences (spec: open or acknowledged). */
export const isActive = (status: AlertStatus): boolean => status !== 'resolved';
