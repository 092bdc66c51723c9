import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AuthMode } from '../catalog.ts';
import { config } from '../config.ts';
import { authenticateApiKey } from '../domain/accounts/api-key-service.ts';
import { parseApiKey } from '../domain/accounts/api-keys.ts';
import { type ExternalIssuer, type ExternalKeySet, verifyAccessToken } from '../domain/accounts/jwt.ts';
import { hmacSha256 } from '../domain/accounts/secrets.ts';
import type { SigningMaterial } from '../domain/accounts/signing-keys.ts';
import { userForExternalToken } from '../domain/accounts/users.ts';
import { ForbiddenError, UnauthorizedError } from '../domain/errors.ts';
import type { Ports } from '../domain/store.ts';

/** Who is calling. Every read and write is scoped by `tenantId`, which comes only from here. */
export type Principal = { kind: 'user'; tenantId: string; userId: string; email: string } | { kind: 'apiKey'; tenantId: string; keyId: string };

function bearerToken(event: APIGatewayProxyEventV2): string | undefined {
  const header = event.headers['authorization'];
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new UnauthorizedError('The Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * The keys tokens are signed and verified with (the service's own, and external issuers' key sets),
 * and the secret that proves a request came through the console's distribution (client-address.ts).
 */
export interface CredentialPorts {
  signing: () => Promise<SigningMaterial>;
  externalKeySet: (issuer: ExternalIssuer) => ExternalKeySet;
  /** The console distribution's origin secret: its current value and, after a re-key, its previous. */
  originSecret: () => Promise<readonly string[] | undefined>;
}

/** What authentication uses: API keys, and the users and tenants an external identity maps to. */
export type AuthPorts = Ports<'apiKeys' | 'users' | 'tenants'> & CredentialPorts;

async function userFromToken(token: string, ports: AuthPorts): Promise<Principal> {
  const verified = await verifyAccessToken(token, {
    keys: await ports.signing(),
    settings: config.jwt,
    externalIssuers: config.jwt.externalIssuers,
    externalKeySet: ports.externalKeySet,
    now: () => ports.clock.now(),
  });
  if (verified.kind === 'own') return { kind: 'user', ...verified.claims };
  const user = await userForExternalToken(verified, { ...ports, signUpPlan: config.signUpPlan });
  if (!user.isActive) throw new UnauthorizedError('This account is deactivated');
  return { kind: 'user', tenantId: user.tenantId, userId: user.id, email: user.email };
}

/** Resolves the caller for a route's auth mode; undefined only for public routes. */
export async function authenticate(event: APIGatewayProxyEventV2, mode: AuthMode, ports: AuthPorts): Promise<Principal | undefined> {
  if (mode === 'public') return undefined;
  const token = bearerToken(event);
  const apiKey = event.headers['x-api-key'];
  if (token) return userFromToken(token, ports);
  if (apiKey !== undefined) {
    const key = await authenticateApiKey(apiKey, { apiKeys: ports.store.apiKeys, clock: ports.clock, signing: ports.signing });
    if (mode === 'jwt') throw new ForbiddenError('This endpoint needs a user bearer token; API keys are not accepted');
    return { kind: 'apiKey', ...key };
  }
  throw new UnauthorizedError(
    mode === 'jwt' ? 'Missing bearer token (Authorization: Bearer <token>)' : 'Missing credentials: send x-api-key or Authorization: Bearer <token>',
  );
}

/**
 * The rate-limit bucket of the API key a request presents, known before the key is checked: the key's
 * id and a keyed fingerprint of the secret presented (the secret itself is never stored). So the guard
 * counts the request while the key is looked up, and a forged secret for a real key's id is counted in
 * a bucket of its own (then against the client address, as every refused credential is), never
 * against the real key's budget. Undefined when the request would not be authenticated by an API key.
 */
export async function apiKeyRateSubject(event: APIGatewayProxyEventV2, mode: AuthMode, signing: CredentialPorts['signing']): Promise<string | undefined> {
  const presented = event.headers['x-api-key'];
  if (mode !== 'any' || presented === undefined || event.headers['authorization'] !== undefined) return undefined;
  const parsed = parseApiKey(presented);
  if (!parsed) return undefined;
  const { apiKeyPepper } = await signing();
  return `key:${parsed.keyId}:${hmacSha256(apiKeyPepper, `rate-limit:${parsed.secret}`).slice(0, 16)}`;
}

/**
 * The identity a rate limit counts a user or a refused credential against (an API key's:
 * `apiKeyRateSubject`): the user, or else the client's network (`clientAddress`).
 */
export async function rateLimitSubject(principal: Exclude<Principal, { kind: 'apiKey' }> | undefined, client: () => Promise<string>): Promise<string> {
  return principal ? `user:${principal.userId}` : `ip:${await client()}`;
}

/** The signed-in user behind a `jwt` route (the guard has already refused anything else). */
export function userOf(principal: Principal | undefined): Extract<Principal, { kind: 'user' }> {
  if (principal?.kind !== 'user') throw new UnauthorizedError();
  return principal;
}

/** The tenant every read and write of a protected route is scoped to. */
export function tenantOf(principal: Principal | undefined): string {
  if (!principal) throw new UnauthorizedError();
  return principal.tenantId;
}
