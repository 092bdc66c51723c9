/**
 * The console's content security policy: its own scripts and styles only, API calls to its own
 * origin, never framed. CloudFront's response headers policy (infra/aws/console-stack.ts) and the
 * local server send the same.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every console response carries (HSTS is CloudFront's: it means nothing over plain http). */
export const CONSOLE_SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
} as const;
