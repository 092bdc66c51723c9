import { forgotPassword } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('auth/forgot-password', async ({ body }, ports) =>
  ok(await forgotPassword(body, accountsDeps(ports))),
);
