/**
 * The console's content security policy: its own scripts and styles only, API calls to its own
 * origin (and to the token endpoints of the hosted sign-ins it offers, `signInOrigins`), never framed.
 * CloudFront's response headers policy (infra/aws/console-stack.ts) and the local server send the same.
 */
export const consoleContentSecurityPolicy = (signInOrigins: readonly string[] = []) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...signInOrigins].join(' '),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/** Headers every console response carries (HSTS is CloudFront's: it means nothing over plain http). */
export const consoleSecurityHeaders = (signInOrigins: readonly string[] = []) =>
  ({
    'content-security-policy': consoleContentSecurityPolicy(signInOrigins),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  }) as const;
