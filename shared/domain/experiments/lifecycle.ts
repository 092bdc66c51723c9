import { ValidationError } from '../errors.ts';

export const EXPERIMENT_STATUSES = ['draft', 'running', 'paused', 'stopped'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const EXPERIMENT_ACTIONS = ['start', 'pause', 'stop'] as const;
export type ExperimentAction = (typeof EXPERIMENT_ACTIONS)[number];

/** Which states each action leaves from: draft → running ⇄ paused → stopped; stopped is final. */
const FROM: Record<ExperimentAction, readonly ExperimentStatus[]> = {
  start: ['draft', 'paused'],
  pause: ['running'],
  stop: ['running', 'paused'],
};
const TO: Record<ExperimentAction, ExperimentStatus> = { start: 'running', pause: 'paused', stop: 'stopped' };

/** The state an action leads to, or a 400 that names the current state. */
export function transition(current: ExperimentStatus, action: ExperimentAction): ExperimentStatus {
  if (!FROM[action].includes(current)) {
    throw new ValidationError(`Cannot ${action} an experiment that is ${current}; ${action} applies to ${FROM[action].join(' or ')} experiments`);
  }
  return TO[action];
}

/** Only a running experiment hands out variants. */
export function assertAssigning(status: ExperimentStatus): void {
  if (status !== 'running') throw new ValidationError(`The experiment is ${status}; only running experiments assign variants`);
}
