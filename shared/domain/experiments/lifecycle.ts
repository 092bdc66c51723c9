import { ValidationError } from '../errors.ts';
import { lifecycle } from '../lifecycle.ts';

export const EXPERIMENT_STATUSES = ['draft', 'running', 'paused', 'stopped'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const EXPERIMENT_ACTIONS = ['start', 'pause', 'stop'] as const;
export type ExperimentAction = (typeof EXPERIMENT_ACTIONS)[number];

/** draft → running ⇄ paused → stopped; stopped is final. */
export const { transition } = lifecycle<ExperimentStatus, ExperimentAction>('experiment', {
  start: { from: ['draft', 'paused'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  stop: { from: ['running', 'paused'], to: 'stopped' },
});

/** Only a running experiment hands out variants. */
export function assertAssigning(status: ExperimentStatus): void {
  if (status !== 'running') throw new ValidationError(`The experiment is ${status}; only running experiments assign variants`);
}
