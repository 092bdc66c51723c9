import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * A stand-in for a Cognito user pool's hosted sign-in, for tests only: Cognito's endpoints
 * (`/oauth2/authorize`, `/oauth2/token`, `/oauth2/revoke`, `/logout`) on loopback, the authorization
 * code grant with PKCE (S256) for one public app client, its own sign-in session in a cookie, and
 * RS256 tokens whose keys it publishes at `<issuer>/.well-known/jwks.json`. Its access tokens name the
 * client in `aud` as well as `client_id`: the API checks `aud` for any issuer that is not a Cognito
 * pool's URL, which a loopback one cannot be.
 */
export interface StandInOptions {
  clientId: string;
}

interface Grant {
  email: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  issuedAt: number;
}

const SESSION_COOKIE = 'standin_session';
const TOKEN_SECONDS = 3600;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const random = () => randomBytes(24).toString('base64url');

export async function startOAuthStandIn(options: StandInOptions) {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'stand-in-key', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, Grant>();
  const refreshTokens = new Map<string, { email: string; scope: string }>();
  /** The provider's own sign-ins, by session cookie: what lets it answer a second authorization at once. */
  const sessions = new Map<string, string>();
  const events: string[] = [];
  /** The callback and sign-out URLs registered on the app client. */
  const redirectUris: string[] = [];
  const logoutUris: string[] = [];
  /** How long a code may wait for the token request; a test sets 0 to see an expired code refused. */
  let codeLifetimeMs = 5 * 60_000;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const domain = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${domain}/pool`;

  async function tokens(email: string, scope: string, withRefresh: boolean) {
    const now = Math.floor(Date.now() / 1000);
    const sub = `standin-${createHash('sha256').update(email).digest('hex').slice(0, 16)}`;
    const claims = { email, email_verified: true, given_name: 'Grace', family_name: 'Hopper' };
    const sign = (payload: Record<string, unknown>) =>
      new SignJWT({ ...claims, ...payload })
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(options.clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_SECONDS)
        .sign(privateKey);
    const refreshToken = random();
    if (withRefresh) refreshTokens.set(refreshToken, { email, scope });
    return {
      access_token: await sign({ token_use: 'access', client_id: options.clientId, scope }),
      id_token: await sign({ token_use: 'id' }),
      ...(withRefresh ? { refresh_token: refreshToken } : {}),
      token_type: 'Bearer',
      expires_in: TOKEN_SECONDS,
    };
  }

  function redirectWithCode(res: ServerResponse, params: URLSearchParams, email: string, cookie?: string) {
    const code = random();
    codes.set(code, {
      email,
      clientId: params.get('client_id')!,
      redirectUri: params.get('redirect_uri')!,
      codeChallenge: params.get('code_challenge')!,
      scope: params.get('scope') ?? '',
      issuedAt: Date.now(),
    });
    const to = new URL(params.get('redirect_uri')!);
    to.searchParams.set('code', code);
    if (params.has('state')) to.searchParams.set('state', params.get('state')!);
    events.push(`code for ${email}`);
    res.writeHead(302, { location: to.href, ...(cookie ? { 'set-cookie': cookie } : {}) }).end();
  }

  /** Refused requests that must not be sent back to the client (an unknown client or redirect URI) answer here. */
  const badRequest = (res: ServerResponse, message: string) => res.writeHead(400, { 'content-type': 'text/plain' }).end(message);
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', domain);
    const form = req.method === 'POST' ? new URLSearchParams(await bodyOf(req)) : new URLSearchParams();
    const sessionId = /(?:^|;\s*)standin_session=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];

    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type, accept, authorization, dpop',
        })
        .end();
      return;
    }
    if (url.pathname === '/pool/.well-known/jwks.json') return json(res, 200, { keys: [jwk] });

    if (url.pathname === '/oauth2/authorize') {
      const params = req.method === 'POST' ? form : url.searchParams;
      if (params.get('client_id') !== options.clientId || !redirectUris.includes(params.get('redirect_uri') ?? '')) {
        return badRequest(res, 'unknown client or redirect_uri');
      }
      const back = new URL(params.get('redirect_uri')!);
      if (params.get('response_type') !== 'code' || params.get('code_challenge_method') !== 'S256' || !params.get('code_challenge')) {
        back.searchParams.set('error', 'invalid_request');
        if (params.has('state')) back.searchParams.set('state', params.get('state')!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (req.method === 'GET') {
        const signedIn = sessionId ? sessions.get(sessionId) : undefined;
        if (signedIn) return redirectWithCode(res, params, signedIn);
        return signInPage(res, params);
      }
      if (form.get('action') === 'cancel') {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user cancelled the sign-in');
        if (params.has('state')) back.searchParams.set('state', params.get('state')!);
        events.push('denied');
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      const email = (form.get('email') ?? '').trim().toLowerCase();
      const id = random();
      sessions.set(id, email);
      return redirectWithCode(res, params, email, `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
    }

    if (url.pathname === '/oauth2/token' && req.method === 'POST') {
      if (form.get('client_id') !== options.clientId) return json(res, 400, { error: 'invalid_client' });
      if (form.get('grant_type') === 'refresh_token') {
        const held = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!held) return json(res, 400, { error: 'invalid_grant', error_description: 'Refresh token has been revoked' });
        events.push(`refreshed for ${held.email}`);
        return json(res, 200, await tokens(held.email, held.scope, false));
      }
      if (form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
      const code = form.get('code') ?? '';
      const grant = codes.get(code);
      codes.delete(code);
      if (!grant || Date.now() - grant.issuedAt > codeLifetimeMs)
        return json(res, 400, { error: 'invalid_grant', error_description: 'The authorization code has expired or was used' });
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (grant.redirectUri !== form.get('redirect_uri') || grant.codeChallenge !== challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      events.push(`tokens for ${grant.email}`);
      return json(res, 200, await tokens(grant.email, grant.scope, true));
    }

    if (url.pathname === '/oauth2/revoke' && req.method === 'POST') {
      if (refreshTokens.delete(form.get('token') ?? '')) events.push('revoked');
      return json(res, 200, {});
    }

    if (url.pathname === '/logout') {
      if (url.searchParams.get('client_id') !== options.clientId || !logoutUris.includes(url.searchParams.get('logout_uri') ?? '')) {
        return badRequest(res, 'unknown client or logout_uri');
      }
      if (sessionId) sessions.delete(sessionId);
      events.push('logout');
      res.writeHead(302, { location: url.searchParams.get('logout_uri')!, 'set-cookie': `${SESSION_COOKIE}=; Path=/; Max-Age=0` }).end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  function signInPage(res: ServerResponse, params: URLSearchParams) {
    const hidden = [...params].map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html lang="en"><title>Stand-in pool</title><main><h1>Sign in to the stand-in pool</h1>` +
          `<form method="post" action="/oauth2/authorize">${hidden}<label>E-mail <input name="email" type="email" required></label>` +
          `<button name="action" value="sign-in">Continue</button><button name="action" value="cancel" formnovalidate>Cancel</button></form></main></html>`,
      );
  }

  return {
    issuer,
    domain,
    clientId: options.clientId,
    /** What happened, in order: codes issued, tokens, refreshes, revocations, logouts, denials. */
    events,
    setCodeLifetimeMs(ms: number) {
      codeLifetimeMs = ms;
    },
    /** Registers the console at `origin` on the app client: its callback and sign-in pages as the callback and sign-out URLs. */
    registerConsole(origin: string) {
      redirectUris.push(`${origin}/auth/callback`);
      logoutUris.push(`${origin}/login`);
    },
    /** The `JWT_EXTERNAL_ISSUERS` entry that accepts this pool's tokens and offers its hosted sign-in (at the console's PUBLIC_APP_URL). */
    externalIssuer(name: string) {
      return { issuer, audiences: [options.clientId], hostedSignIn: { name, domain, clientId: options.clientId } };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type OAuthStandIn = Awaited<ReturnType<typeof startOAuthStandIn>>;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
