import * as oauth from 'oauth4webapi';
import type { components, paths } from '../api/schema';
import { type Renewal, type Renewed, session } from './session';

export type HostedProvider = components['schemas']['HostedSignInProvider'];
type Profile = paths['/users/profile']['get']['responses'][200]['content']['application/json'];

/** The sign-in this tab started: what the provider's answer must match, and where to go after. */
interface Pending {
  provider: string;
  state: string;
  codeVerifier: string;
  next: string;
  startedAt: number;
}

const PENDING_KEY = 'aos-hosted-sign-in';
/** The provider this tab signed in with: a reload signs in through it again (its own session answers at once). */
const PROVIDER_KEY = 'aos-hosted-provider';
/** Longer than a person takes on the provider's page; Cognito's codes themselves live 5 minutes. */
const PENDING_TTL_MS = 10 * 60_000;
/** When the token endpoint leaves out `expires_in` (Cognito always sends it): its default lifetime. */
const DEFAULT_EXPIRES_IN = 3600;

/** A sign-in that could not be finished, in words for the visitor. */
export class HostedSignInError extends Error {}

const serverOf = (provider: HostedProvider): oauth.AuthorizationServer => ({
  issuer: provider.issuer,
  authorization_endpoint: provider.authorizationEndpoint,
  token_endpoint: provider.tokenEndpoint,
  revocation_endpoint: provider.revocationEndpoint,
});
const clientOf = (provider: HostedProvider): oauth.Client => ({ client_id: provider.clientId });
/** The API accepts plain http only for a provider on this machine (a stand-in in development and tests). */
const requestOptions = (provider: HostedProvider) => (new URL(provider.tokenEndpoint).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {});

/** Goes to the provider's sign-in page (authorization code with PKCE); it answers at /auth/callback. */
export async function startHostedSignIn(provider: HostedProvider, next: string): Promise<void> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const pending: Pending = { provider: provider.name, state, codeVerifier, next, startedAt: Date.now() };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(provider.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: provider.redirectUri,
    scope: provider.scopes.join(' '),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.href);
}

/** The provider this tab last signed in with, while its sign-in may still be renewed by going there again. */
export const rememberedProvider = (): string | null => sessionStorage.getItem(PROVIDER_KEY);

/** The pending sign-in, once: a second answer to the same sign-in finds none. */
function takePending(): Pending | undefined {
  const text = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Pending;
  } catch {
    return undefined;
  }
}

/**
 * Finishes the sign-in the provider answered at `callback`: checks its state, exchanges the code
 * (with the PKCE verifier) for tokens, asks the API who the access token's user is, and signs them in.
 * Resolves with the page to go to.
 */
export async function completeHostedSignIn(providers: readonly HostedProvider[], callback: URL): Promise<string> {
  sessionStorage.removeItem(PROVIDER_KEY);
  const pending = takePending();
  if (!pending) throw new HostedSignInError('This sign-in was not started in this tab, or it has already been finished. Start it again.');
  const provider = providers.find((p) => p.name === pending.provider);
  if (!provider) throw new HostedSignInError(`Sign-in with ${pending.provider} is no longer offered.`);
  const name = provider.name;
  if (Date.now() - pending.startedAt > PENDING_TTL_MS) throw new HostedSignInError(`The sign-in with ${name} took too long and has expired. Start it again.`);
  if (callback.searchParams.get('state') !== pending.state) {
    throw new HostedSignInError(
      `The answer from ${name} does not belong to the sign-in started here (its state does not match), so it was not used. Start again.`,
    );
  }
  const as = serverOf(provider);
  const client = clientOf(provider);
  let tokens: oauth.TokenEndpointResponse;
  try {
    const parameters = oauth.validateAuthResponse(as, client, callback, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      parameters,
      provider.redirectUri,
      pending.codeVerifier,
      requestOptions(provider),
    );
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  } catch (err) {
    throw signInError(name, err);
  }
  const renewal = hostedRenewal(provider, tokens.refresh_token);
  const user = await profileOf(tokens.access_token);
  session.accept({ accessToken: tokens.access_token, expiresIn: tokens.expires_in ?? DEFAULT_EXPIRES_IN, user }, renewal);
  sessionStorage.setItem(PROVIDER_KEY, name);
  return pending.next;
}

function signInError(name: string, err: unknown): Error {
  if (err instanceof oauth.AuthorizationResponseError) {
    return new HostedSignInError(
      err.error === 'access_denied'
        ? `Sign-in with ${name} was cancelled or refused (access_denied).`
        : `${name} refused the sign-in: ${err.error_description ?? err.error} (${err.error}).`,
    );
  }
  if (err instanceof oauth.ResponseBodyError) {
    return new HostedSignInError(
      err.error === 'invalid_grant'
        ? `The sign-in code from ${name} has expired or was already used (invalid_grant). Start again.`
        : `${name} refused the sign-in: ${err.error_description ?? err.error} (${err.error}).`,
    );
  }
  if (err instanceof oauth.OperationProcessingError) return new HostedSignInError(`${name}'s answer could not be used: ${err.message}.`);
  // fetch rejects with a TypeError when the provider cannot be reached.
  if (err instanceof TypeError) return new HostedSignInError(`${name} could not be reached to finish the sign-in.`);
  return err instanceof Error ? err : new Error(String(err));
}

/** The API's user for the provider's access token (created on first sight); its refusal in its own words. */
async function profileOf(accessToken: string): Promise<Profile> {
  const res = await fetch('/api/users/profile', { headers: { authorization: `Bearer ${accessToken}` } });
  const body = (await res.json().catch(() => undefined)) as Profile | { error?: { code: string; message: string } } | undefined;
  if (res.ok && body && 'success' in body) return body;
  const error = body && 'error' in body ? body.error : undefined;
  throw new HostedSignInError(
    error ? `The service refused the sign-in: ${error.message} (${error.code}).` : `The service answered ${res.status} to the sign-in.`,
  );
}

/**
 * A hosted sign-in is renewed with the provider's refresh token, kept in this page's memory only (a
 * reload goes through the provider's page again, which answers at once while its own session lasts),
 * and ended at the provider: the refresh token revoked, then its logout, which ends its session too.
 */
function hostedRenewal(provider: HostedProvider, refreshToken: string | undefined): Renewal {
  const as = serverOf(provider);
  const client = clientOf(provider);
  return {
    async renew(): Promise<Renewed | undefined> {
      if (!refreshToken) return undefined;
      try {
        const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, requestOptions(provider));
        const tokens = await oauth.processRefreshTokenResponse(as, client, response);
        refreshToken = tokens.refresh_token ?? refreshToken;
        return { accessToken: tokens.access_token, expiresIn: tokens.expires_in ?? DEFAULT_EXPIRES_IN };
      } catch (err) {
        if (err instanceof oauth.ResponseBodyError || err instanceof oauth.OperationProcessingError || err instanceof TypeError) return undefined;
        throw err;
      }
    },
    async end() {
      sessionStorage.removeItem(PROVIDER_KEY);
      if (refreshToken) {
        await oauth.revocationRequest(as, client, oauth.None(), refreshToken, requestOptions(provider)).catch(() => undefined);
      }
      const logout = new URL(provider.logoutEndpoint);
      logout.search = new URLSearchParams({ client_id: provider.clientId, logout_uri: provider.logoutUri }).toString();
      window.location.assign(logout.href);
      return true;
    },
  };
}
