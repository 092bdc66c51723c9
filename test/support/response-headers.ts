import { RESPONSE_SECURITY_HEADERS } from '#shared/http/response-headers.ts';

/** The routes whose answers may be cached, and how (everything else answers `Cache-Control: no-store`). */
const CACHEABLE: Record<string, string> = {
  '/api/.well-known/jwks.json': 'public, max-age=300',
};
const CACHEABLE_PATTERNS: [RegExp, string][] = [[/^\/api\/experiments\/[^/]+\/assign$/, 'private, max-age=30']];

/** Throws unless the answer carries `X-Content-Type-Options: nosniff` and its Cache-Control. */
export function assertSecurityHeaders(method: string, path: string, status: number, headers: Headers): void {
  const expectedCache =
    status < 400
      ? (CACHEABLE[path] ?? CACHEABLE_PATTERNS.find(([pattern]) => pattern.test(path))?.[1] ?? RESPONSE_SECURITY_HEADERS['Cache-Control'])
      : RESPONSE_SECURITY_HEADERS['Cache-Control'];
  const problems = [
    headers.get('x-content-type-options') !== RESPONSE_SECURITY_HEADERS['X-Content-Type-Options'] &&
      `X-Content-Type-Options is ${headers.get('x-content-type-options')}`,
    headers.get('cache-control') !== expectedCache && `Cache-Control is ${headers.get('cache-control')}, not ${expectedCache}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${method} ${path} answered ${status} with ${problems.join('; ')}`);
}
