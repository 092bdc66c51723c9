import { httpRoute } from '../../../shared/http/route.ts';
import { ok } from '../../../shared/http/reply.ts';

export const handler = httpRoute('system/health', async () => ok({ status: 'ok' }));
