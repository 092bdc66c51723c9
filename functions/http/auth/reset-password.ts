import { resetPassword } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('auth/reset-password', async ({ body }, ports) =>
  ok(await resetPassword(body, accountsDeps(ports))),
);
