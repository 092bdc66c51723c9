import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { API_BASE_PATH } from '../catalog.ts';
import type { RefreshGrant } from '../domain/accounts/sessions.ts';
import type { Reply } from './reply.ts';

/**
 * The refresh token's cookie: out of reach of scripts (HttpOnly), only over https (Secure; browsers
 * treat http://127.0.0.1 and localhost as secure), never sent by another site's page (SameSite=Strict),
 * and only to the auth endpoints (Path), so no other request carries it.
 */
export const REFRESH_COOKIE = 'aos_refresh';
export const REFRESH_COOKIE_PATH = `${API_BASE_PATH}/auth`;

const ATTRIBUTES = `Path=${REFRESH_COOKIE_PATH}; HttpOnly; Secure; SameSite=Strict`;

/** `Set-Cookie` for a new refresh token, or one that deletes the cookie. */
export const refreshCookie = (grant: RefreshGrant | undefined): string =>
  grant ? `${REFRESH_COOKIE}=${grant.token}; Max-Age=${grant.maxAgeSeconds}; ${ATTRIBUTES}` : `${REFRESH_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`;

/** The refresh token the browser sent (API Gateway hands cookies over in `cookies`, one `name=value` each). */
export function refreshTokenOf(event: APIGatewayProxyEventV2): string | undefined {
  for (const cookie of event.cookies ?? []) {
    const separator = cookie.indexOf('=');
    if (separator > 0 && cookie.slice(0, separator).trim() === REFRESH_COOKIE) {
      const value = cookie.slice(separator + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

export const withCookie = (reply: Reply, cookie: string): Reply => ({ ...reply, headers: { ...reply.headers, 'Set-Cookie': cookie } });
