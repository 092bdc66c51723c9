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
import { stopExperimentsOfAgent } from '#shared/domain/experiments/service.ts';

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

describe("stopping a deleted agent's experiments", () => {
  it('passes over an experiment deleted meanwhile, and stops the others', async () => {
    const stopped: string[] = [];
    const running = (id: string) => ({ id, tenantId: 't', status: 'running' as const, startedAt: '2026-11-30T00:00:00.000Z', stoppedAt: null });
    const experiments = {
      page: async () => ({ items: [running('exp_gone'), running('exp_kept')], hasMore: false, next: undefined }),
      get: async (_tenant: string, id: string) => (id === 'exp_gone' ? undefined : running(id)),
      replaceIfStatus: async (record: { id: string }) => {
        stopped.push(record.id);
        return true;
      },
    };
    const deps = {
      store: { experiments } as unknown as Parameters<typeof stopExperimentsOfAgent>[2]['store'],
      clock: { now: () => new Date('2026-11-30T12:00:00Z') },
    };
    await stopExperimentsOfAgent('t', 'agt_1', deps);
    expect(stopped).toEqual(['exp_kept']);
  });
});
