import { decodeCursor, encodeCursor } from '#shared/domain/paging/cursor.ts';
import { getTrace } from '#shared/domain/spans/queries.ts';
import { tenantOf } from '#shared/http/auth.ts';
import { ok } from '#shared/http/reply.ts';
import { httpRoute } from '#shared/http/route.ts';
import { spansRoutes } from '#shared/schemas/routes/spans.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { routePorts } from '#shared/wiring/routes.ts';

export const handler = httpRoute('spans/get-trace', spansRoutes, routePorts({ traces: tracesRepository }), async ({ params, query, principal }, ports) => {
  // The cursor goes on through this trace's spans, for the tenant that read it.
  const scope = { tenantId: tenantOf(principal), route: 'spans/get-trace', filters: { traceId: params.traceId } };
  const { cursorKey } = await ports.signing();
  const nowMs = ports.clock.now().getTime();
  const after = query.cursor === undefined ? undefined : decodeCursor(cursorKey, scope, query.cursor, nowMs);
  const { trace, nextSpans } = await getTrace(ports.store, scope.tenantId, params.traceId, after);
  return ok({ ...trace, spansNextCursor: nextSpans === undefined ? null : encodeCursor(cursorKey, scope, nextSpans, nowMs) });
});
