import { sqsQueue } from '../../../shared/adapters/queue.ts';
import { login } from '../../../shared/domain/accounts/users.ts';
import { accountsDeps } from '../../../shared/http/deps.ts';
import { ok } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';
import { authRoutes } from '../../../shared/schemas/routes/auth.ts';
import { signInFailuresRepository } from '../../../shared/store/sign-in-failures.ts';
import { usersRepository } from '../../../shared/store/users.ts';

export const handler = httpRoute('auth/login', authRoutes, routePorts({ users: usersRepository, signInFailures: signInFailuresRepository }, { queue: sqsQueue }), async ({ body }, ports) =>
  ok(await login(body, accountsDeps(ports))),
);
