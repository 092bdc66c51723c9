import { ValidationError } from './errors.ts';

/** Per action of a lifecycle: the states it leaves from and the state it leads to. */
export type Moves<S extends string, A extends string> = { readonly [K in A]: { readonly from: readonly S[]; readonly to: S } };

/**
 * A record's lifecycle (an alert's, an experiment's): `transition` answers the state an action leads
 * to, or a 400 that names the current state and the states the action applies to.
 */
export function lifecycle<S extends string, A extends string>(noun: string, moves: Moves<S, A>) {
  return {
    transition(current: S, action: A): S {
      const { from, to } = moves[action];
      if (!from.includes(current))
        throw new ValidationError(`Cannot ${action} ${article(noun)} ${noun} that is ${current}; ${action} applies to ${from.join(' or ')} ${noun}s`);
      return to;
    },
  };
}

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');

const STATUS_CHANGE_ATTEMPTS = 5;

/**
 * A status change as an optimistic read-modify-write: `attempt` reads the record, applies the
 * transition and writes it only if the record is still the one read, answering undefined when it was
 * not (someone changed it meanwhile), and the change is tried again on a fresh read.
 */
export async function changeStatus<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < STATUS_CHANGE_ATTEMPTS; i++) {
    const changed = await attempt();
    if (changed !== undefined) return changed;
  }
  throw new Error(`${what} kept changing while being updated`);
}
