import type * as z from 'zod/mini';
import type { RouteDef, RouteId } from '../catalog.ts';

export const MB = 1024 * 1024;
/** A body kept in one item (DynamoDB's 400 KB), with room for what the service adds to it. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** The telemetry batches' body (spans, signals, logs, OTLP), decompressed: the largest any route takes. */
export const TELEMETRY_MAX_BODY_BYTES = 5 * MB;

export interface RouteSchemas {
  summary: string;
  body?: z.ZodMiniType;
  query?: z.ZodMiniType;
  params?: z.ZodMiniType;
  /** Largest request body accepted (decompressed); 256 KB unless said otherwise. */
  maxBodyBytes?: number;
  /**
   * Telemetry: each item is validated on its own, and values the store cannot hold (numbers out of
   * range, deep nesting) are kept as text (`shared/domain/ingest/messages.ts`); what is nested past
   * `MAX_INGEST_BODY_DEPTH` is left out, marked (`shared/domain/nesting.ts`). Any other body holding
   * such a value is refused, naming where.
   */
  convertsUnstorableValues?: true;
  /** The body is not JSON (OTLP protobuf or JSON, decoded by the handler); described here for the docs. */
  rawBody?: { contentTypes: readonly string[] };
}

/** The area of a route id: `keys` of `keys/list`. */
type AreaOf<R extends RouteId> = R extends `${infer Area}/${string}` ? Area : never;
export type RouteArea = AreaOf<RouteId>;

/**
 * The request schemas of one area's routes, keyed by route id: every route of the area, and no
 * other. Each HTTP function imports its own area's table only, so it constructs no other area's schemas.
 */
export type AreaRouteSchemas<Area extends RouteArea> = { readonly [R in RouteId as AreaOf<R> extends Area ? R : never]: RouteSchemas };

/** What the HTTP stack reads of a route's catalog row: who may call it and its rate tier. */
export type RouteRef = Pick<RouteDef, 'id' | 'auth' | 'tier'>;

/** A route's request schemas with its catalog row. */
export type AreaRoute = RouteSchemas & { readonly route: RouteRef };

/**
 * An area's table as the handlers take it: each catalog row of the area (`rows`) with its request
 * schemas. A function's bundle thus holds its own area's rows and schemas, not the whole catalog.
 * Schemas for a route without a row, or a row without schemas, do not compile.
 */
export function areaRoutes<const Rows extends readonly RouteRef[], S extends { readonly [R in Rows[number]['id']]: RouteSchemas }>(
  rows: Rows,
  schemas: S & { readonly [Other in Exclude<keyof S, Rows[number]['id']>]: never },
): { readonly [R in Rows[number]['id']]: S[R] & { readonly route: RouteRef } } {
  const schemasOf = (id: Rows[number]['id']): RouteSchemas => (schemas as S)[id];
  return Object.fromEntries(rows.map((route) => [route.id, { ...schemasOf(route.id), route }])) as {
    readonly [R in Rows[number]['id']]: S[R] & { readonly route: RouteRef };
  };
}
