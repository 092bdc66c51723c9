import { profile } from '../../../shared/domain/accounts/users.ts';
import { userOf } from '../../../shared/http/auth.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { raw } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

/** The spec documents this one answer with the profile fields at top level beside `success`. */
export const handler = httpRoute('users/profile', async ({ principal }, ports) =>
  raw(200, { success: true, ...(await profile(userOf(principal).userId, accountsDeps(ports))) }),
);
