/**
 * On every API answer, errors included: answers carry tokens, keys and tenants' data, so no browser or
 * proxy keeps them unless the route says otherwise (a route's own Cache-Control wins, e.g. the public
 * JWKS), and no browser reads them as anything but their Content-Type.
 */
export const RESPONSE_SECURITY_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;
