import { verifyEmail } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute } from '../../../shared/http/route.ts';

export const handler = httpRoute('auth/verify-email', async ({ query }, ports) =>
  ok(await verifyEmail(query, accountsDeps(ports))),
);
