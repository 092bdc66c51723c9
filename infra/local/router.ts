import { API_BASE_PATH, type Catalog, type RouteDef } from '#shared/catalog.ts';

export interface RouteMatch {
  /** The catalog route, or the fallback route when nothing matched. */
  route: Pick<RouteDef, 'id' | 'memoryMb'>;
  /** API Gateway's routeKey: `GET /api/keys/{id}`, or `$default` for the fallback. */
  routeKey: string;
  pathParameters?: Record<string, string>;
}

interface CompiledRoute {
  def: RouteDef;
  routeKey: string;
  /** Template segments below the base path; `{name}` captures exactly one segment. */
  segments: string[];
  literalCount: number;
}

const isParameter = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * Matches method + path against the catalog as API Gateway does: below the base path, the route with
 * the most literal segments wins; anything else (unknown path, or a known path with another method)
 * goes to the fallback route.
 */
export function createRouter(catalog: Catalog): (method: string, rawPath: string) => RouteMatch {
  const compiled: CompiledRoute[] = catalog.routes.map((def) => {
    const segments = def.path.split('/').slice(1);
    return {
      def,
      routeKey: `${def.method} ${API_BASE_PATH}${def.path}`,
      segments,
      literalCount: segments.filter((s) => !isParameter(s)).length,
    };
  });
  compiled.sort((a, b) => b.literalCount - a.literalCount);
  const fallback: RouteMatch = { route: catalog.fallbackRoute, routeKey: '$default' };

  return (method, rawPath) => {
    if (!rawPath.startsWith(`${API_BASE_PATH}/`)) return fallback;
    const segments = rawPath.slice(API_BASE_PATH.length).split('/').slice(1);
    for (const candidate of compiled) {
      if (candidate.def.method !== method) continue;
      const pathParameters = matchSegments(candidate.segments, segments);
      if (pathParameters) {
        return {
          route: candidate.def,
          routeKey: candidate.routeKey,
          ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
        };
      }
    }
    return fallback;
  };
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | undefined {
  if (template.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [i, expected] of template.entries()) {
    const segment = actual[i]!;
    if (isParameter(expected)) {
      if (segment === '') return undefined;
      parameters[expected.slice(1, -1)] = decodeSegment(segment);
    } else if (expected !== segment) {
      return undefined;
    }
  }
  return parameters;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
