import type { z } from 'zod';
import type { RouteId } from '../catalog.ts';
import { createKeyBody, forgotPasswordBody, keyIdParams, loginBody, registerBody, resetPasswordBody, verifyEmailQuery } from './accounts.ts';
import { pageQuery } from './common.ts';

export interface RouteSchemas {
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

/**
 * Request schemas of every route, keyed by catalog id: the HTTP stack validates with them and the
 * OpenAPI document is generated from them, so the two cannot drift apart.
 */
export const routeSchemas = {
  'system/health': { summary: 'Liveness check' },
  'system/jwks': { summary: 'Public keys that verify the access tokens this service issues (JWKS)' },
  'system/openapi': { summary: 'This OpenAPI 3.1 document' },
  'system/not-found': { summary: 'Answers any request no route matches with 404 NOT_FOUND' },
  'auth/register': { summary: 'Create an account (starts a 14-day trial) and receive an access token', body: registerBody },
  'auth/login': { summary: 'Exchange e-mail and password for an access token', body: loginBody },
  'auth/forgot-password': { summary: 'E-mail a single-use password reset link (same answer for any e-mail)', body: forgotPasswordBody },
  'auth/reset-password': { summary: 'Set a new password with a reset token', body: resetPasswordBody },
  'auth/verify-email': { summary: 'Mark the e-mail address verified with the token from the welcome e-mail', query: verifyEmailQuery },
  'users/profile': { summary: "The signed-in user's profile, subscription and resource counts" },
  'keys/create': { summary: 'Create an API key; the full key is in the answer, once', body: createKeyBody },
  'keys/list': { summary: "List the tenant's API keys (never their secrets)", query: pageQuery },
  'keys/refresh': { summary: 'Rotate an API key: a new secret, the old one stops working', params: keyIdParams },
  'keys/revoke': { summary: 'Revoke an API key; it stops authenticating at once', params: keyIdParams },
  'keys/delete': { summary: 'Delete an API key', params: keyIdParams },
} as const satisfies Record<RouteId, RouteSchemas>;
