import { login } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('auth/login', async ({ body }, ports) =>
  ok(await login(body, accountsDeps(ports))),
);
