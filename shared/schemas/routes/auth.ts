import * as z from 'zod/mini';
import { authRouteDefs } from '../../catalog.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const password = z.string().check(z.minLength(8, 'must be at least 8 characters'), z.maxLength(256));

export const registerBody = z.object({
  email: z.string().check(z.trim(), z.toLowerCase(), z.email(), z.maxLength(254)),
  password,
  firstName: name,
  lastName: name,
  company: z.optional(z.string().check(z.trim(), z.maxLength(200))),
});
export const loginBody = z.object({ email: z.string().check(z.trim(), z.maxLength(254)), password: z.string().check(z.maxLength(256)) });
export const forgotPasswordBody = z.object({ email: z.string().check(z.trim(), z.maxLength(254)) });
export const resetPasswordBody = z.object({ token: z.string().check(z.minLength(1), z.maxLength(200)), password });
export const verifyEmailQuery = z.object({ token: z.string().check(z.minLength(1), z.maxLength(200)) });

export const authRoutes = /* @__PURE__ */ areaRoutes(authRouteDefs, {
  'auth/register': { summary: 'Create an account (starts a 14-day trial) and receive an access token', body: registerBody },
  'auth/login': { summary: 'Exchange e-mail and password for an access token', body: loginBody },
  'auth/forgot-password': { summary: 'E-mail a single-use password reset link (same answer for any e-mail)', body: forgotPasswordBody },
  'auth/reset-password': { summary: 'Set a new password with a reset token', body: resetPasswordBody },
  'auth/verify-email': { summary: 'Mark the e-mail address verified with the token from the welcome e-mail', query: verifyEmailQuery },
  'auth/refresh': {
    summary: 'Exchange the refresh-token cookie (set by login and register) for an access token and the next refresh token; a reused token ends its sign-in',
  },
  'auth/logout': { summary: 'End the sign-in of the refresh-token cookie and delete the cookie' },
  'auth/hosted-sign-in': {
    summary:
      "The identity providers' hosted sign-in pages the console offers (a Cognito user pool's, from JWT_EXTERNAL_ISSUERS): public OAuth 2.0 client settings, no secret",
  },
} as const satisfies AreaRouteSchemas<'auth'>);
