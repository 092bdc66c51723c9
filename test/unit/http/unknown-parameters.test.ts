import { expect, it } from 'vitest';
import { ValidationError } from '#shared/domain/errors.ts';
import { refuseUnknownParameters } from '#shared/http/validation.ts';
import type { RouteSchemas } from '#shared/schemas/route-schemas.ts';
import { routeSchemas } from '#shared/schemas/routes.ts';

const withQuery = Object.entries(routeSchemas as Record<string, RouteSchemas>).filter(([, schemas]) => schemas.query !== undefined);

it('knows the parameters of every route that takes any, so none takes an unknown one without a word', () => {
  expect(withQuery.length).toBeGreaterThan(15);
  for (const [routeId, { query }] of withQuery) {
    expect(() => refuseUnknownParameters(query!, { noSuchParameter: '1' }), routeId).toThrow(ValidationError);
    expect(() => refuseUnknownParameters(query!, { noSuchParameter: '1' }), routeId).toThrow(/noSuchParameter: is not a parameter of this route/);
  }
});

it('takes the parameters a route names, and points at the one meant when only the case differs', () => {
  const traces = routeSchemas['spans/list-traces'].query;
  expect(() => refuseUnknownParameters(traces, { toolName: 'search', limit: '5' })).not.toThrow();
  expect(() => refuseUnknownParameters(traces, { toolname: 'search' })).toThrow(/toolname: is not a parameter of this route \(did you mean toolName\?\)/);
});
