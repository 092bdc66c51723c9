import { ok } from '../../../shared/http/reply.ts';
import { httpRoute, routePorts } from '../../../shared/http/route.ts';

export const handler = httpRoute('system/health', routePorts(), async () => ok({ status: 'ok' }));
