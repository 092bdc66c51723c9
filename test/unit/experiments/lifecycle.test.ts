import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/domain/errors.ts';
import {
  assertAssigning,
  EXPERIMENT_ACTIONS,
  EXPERIMENT_STATUSES,
  type ExperimentAction,
  type ExperimentStatus,
  transition,
} from '#shared/domain/experiments/lifecycle.ts';

/** Every status × action: the next status, or null when the action is refused. */
const TABLE: Record<ExperimentStatus, Record<ExperimentAction, ExperimentStatus | null>> = {
  draft: { start: 'running', pause: null, stop: null },
  running: { start: null, pause: 'paused', stop: 'stopped' },
  paused: { start: 'running', pause: null, stop: 'stopped' },
  stopped: { start: null, pause: null, stop: null },
};

describe('experiment lifecycle', () => {
  const cases = EXPERIMENT_STATUSES.flatMap((status) => EXPERIMENT_ACTIONS.map((action) => [status, action, TABLE[status][action]] as const));

  it.each(cases)('%s + %s → %s', (status, action, expected) => {
    if (expected) {
      expect(transition(status, action)).toBe(expected);
    } else {
      expect(() => transition(status, action)).toThrow(ValidationError);
      expect(() => transition(status, action)).toThrow(`Cannot ${action} an experiment that is ${status}`);
    }
  });

  it('names what the action needs', () => {
    expect(() => transition('draft', 'stop')).toThrow('stop applies to running or paused experiments');
  });

  it.each(EXPERIMENT_STATUSES)('a %s experiment assigns only when running', (status) => {
    if (status === 'running') expect(() => assertAssigning(status)).not.toThrow();
    else expect(() => assertAssigning(status)).toThrow(`The experiment is ${status}; only running experiments assign variants`);
  });
});
