import { randomBase62 } from '../domain/accounts/secrets.ts';
import type { Ids } from '../domain/ports.ts';

export const randomIds: Ids = { next: (prefix) => `${prefix}_${randomBase62(22)}` };
