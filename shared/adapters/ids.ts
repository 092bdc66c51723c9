import { randomBase62 } from '../domain/accounts/secrets.ts';

export interface Ids {
  /** A new random id with a readable type prefix, e.g. `usr_4f9…`. */
  next(prefix: string): string;
}
export const randomIds: Ids = { next: (prefix) => `${prefix}_${randomBase62(22)}` };
