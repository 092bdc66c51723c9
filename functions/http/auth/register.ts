import { register } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { created } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('auth/register', async ({ body }, ports) =>
  created(await register(body, accountsDeps(ports))),
);
