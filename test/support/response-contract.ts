import { catalog, type RouteId } from '#shared/catalog.ts';
import { type RouteResponse, routeResponses } from '#shared/schemas/responses.ts';
import { createRouter } from '../../infra/local/router.ts';

/** The catalog route a request reaches, found the way the local runtime finds it. */
const routeOf = createRouter(catalog);

export interface ObservedResponse {
  status: number;
  contentType: string | null;
  /** Parsed JSON for a JSON response, else the text. */
  body: unknown;
}

const MAX_ISSUES_SHOWN = 5;

/**
 * Throws unless a success answer is what `routeResponses` documents for the route that served it: the
 * documented status and content type and, for JSON, a body the route's schema accepts (strictly, so
 * an undocumented or missing field fails). CORS preflights are the gateway's own answer, not a route's.
 */
export function assertDocumentedResponse(method: string, pathname: string, response: ObservedResponse): void {
  if (response.status < 200 || response.status > 299 || method === 'OPTIONS') return;
  const routeId = routeOf(method, pathname).route.id as RouteId;
  const documented: RouteResponse = routeResponses[routeId];
  const where = `${method} ${pathname} (route ${routeId})`;
  if (response.status !== documented.status) {
    throw new Error(`${where} answered ${response.status}; its documented success status is ${documented.status}`);
  }
  const mediaType = (response.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-protobuf' && documented.protobufMessage) return;
  if (documented.file) {
    if (!documented.file.contentTypes.includes(mediaType))
      throw new Error(`${where} answered ${response.contentType ?? 'no content type'}; its file is documented as ${documented.file.contentTypes.join(', ')}`);
    return;
  }
  if (mediaType !== 'application/json') {
    throw new Error(`${where} answered ${response.contentType ?? 'no content type'}; it is documented as application/json`);
  }
  const result = documented.body.safeParse(response.body);
  if (result.success) return;
  const issues = result.error.issues
    .slice(0, MAX_ISSUES_SHOWN)
    .map((issue) => `  ${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`);
  const more = result.error.issues.length > MAX_ISSUES_SHOWN ? `\n  … and ${result.error.issues.length - MAX_ISSUES_SHOWN} more` : '';
  throw new Error(`${where} answered a body its documented response schema refuses:\n${issues.join('\n')}${more}`);
}
