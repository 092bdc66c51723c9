import * as z from 'zod/mini';
import { isTrustedKeysUrl, keysUrlOf } from './domain/accounts/jwt.ts';
import { describeIssue } from './schemas/messages.ts';

/**
 * The identity providers whose access tokens the API accepts (`JWT_EXTERNAL_ISSUERS`), and the hosted
 * sign-in pages the console sends users to. Apart from shared/config.ts so that the local server and
 * the console stack can read the hosted sign-ins (the console's CSP names their token endpoints)
 * without loading the functions' configuration.
 */

/** The console's page the hosted sign-in answers to (the OAuth 2.0 redirect URI's path). */
export const HOSTED_SIGN_IN_CALLBACK_PATH = '/auth/callback';
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

const nonEmpty = z.string().check(z.minLength(1));
const url = z.string().check(z.url());
/** https, or plain http on this machine only (a stand-in provider in development and tests): the rule for keys. */
const secureUrl = z.string().check(z.url(), z.refine(isTrustedKeysUrl, 'must be https (plain http only on 127.0.0.1 or localhost)'));
/** zod runs every check of a string, so these see values that are not URLs too. */
const isOriginOnly = (value: string) => {
  if (!URL.canParse(value)) return false;
  const { pathname, search, hash } = new URL(value);
  return pathname === '/' && search === '' && hash === '';
};
const isCallbackPage = (value: string) => URL.canParse(value) && new URL(value).pathname === HOSTED_SIGN_IN_CALLBACK_PATH;

/**
 * A Cognito user pool's hosted sign-in (managed login): its domain, a public app client (no secret:
 * the console is a browser app and cannot keep one) with the authorization code grant and PKCE, and
 * the console's callback URL registered on that client.
 */
const hostedSignIn = z.strictObject({
  /** What the sign-in button says: "Sign in with <name>". */
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(40)),
  /** The pool's domain, e.g. https://acme.auth.eu-west-1.amazoncognito.com or a custom domain. */
  domain: secureUrl.check(z.refine(isOriginOnly, 'is the sign-in domain alone, e.g. https://acme.auth.eu-west-1.amazoncognito.com')),
  clientId: nonEmpty,
  /** The console's callback page registered on the app client; default: `<PUBLIC_APP_URL>/auth/callback`. */
  redirectUri: z.optional(
    secureUrl.check(
      z.refine(isCallbackPage, `must be the console's ${HOSTED_SIGN_IN_CALLBACK_PATH} page, e.g. https://console.example.com${HOSTED_SIGN_IN_CALLBACK_PATH}`),
    ),
  ),
  /** Where the provider's logout returns to (one of the app client's sign-out URLs); default: the console's /login. */
  logoutUri: z.optional(secureUrl),
  scopes: z._default(z.array(z.string().check(z.regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'is not an OAuth scope'))).check(z.minLength(1)), DEFAULT_SCOPES),
  clientSecret: z.optional(z.never('a hosted sign-in uses a public app client: the console cannot keep a secret, so leave it out')),
});

export const externalIssuer = z
  .object({
    /** Expected `iss` claim, e.g. https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf */
    issuer: url,
    /** Defaults to `<issuer>/.well-known/jwks.json`, where Cognito publishes its keys. */
    jwksUrl: z.optional(url),
    /**
     * The audiences accepted: a Cognito pool's app client ids (its access tokens' `client_id`), another
     * issuer's `aud` values. At least one: an issuer whose every audience were accepted would let any app
     * of its users call this API.
     */
    audiences: z.array(nonEmpty).check(z.minLength(1, 'name at least one accepted audience (app client id)')),
    /** The console offers "Sign in with <name>" through this provider's hosted pages. */
    hostedSignIn: z.optional(hostedSignIn),
  })
  .check(
    z.refine((issuer) => isTrustedKeysUrl(keysUrlOf(issuer)), 'its keys must be read over https (plain http only from 127.0.0.1 or localhost)'),
    z.refine((issuer) => !issuer.hostedSignIn || issuer.audiences.includes(issuer.hostedSignIn.clientId), {
      message: 'must be one of the audiences, or the API would refuse the tokens its users sign in with',
      path: ['hostedSignIn', 'clientId'],
    }),
  );
export type ExternalIssuer = z.infer<typeof externalIssuer>;

export const externalIssuers = z.array(externalIssuer).check(
  z.refine((issuers) => {
    const names = issuers.flatMap((i) => (i.hostedSignIn ? [i.hostedSignIn.name.toLowerCase()] : []));
    return new Set(names).size === names.length;
  }, 'each hosted sign-in needs a name of its own'),
);

/** What the console needs to run a hosted sign-in: all of it public (the client id is in every sign-in URL). */
export interface HostedSignInProvider {
  name: string;
  /** The access and ID tokens' `iss`. */
  issuer: string;
  clientId: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  logoutEndpoint: string;
  redirectUri: string;
  logoutUri: string;
  scopes: string[];
}

/** The hosted sign-ins of the configured issuers, with Cognito's endpoints under each domain; the console is at `publicAppUrl`. */
export function hostedSignInProviders(issuers: readonly ExternalIssuer[], publicAppUrl: string): HostedSignInProvider[] {
  return issuers.flatMap(({ issuer, hostedSignIn: hosted }) => {
    if (!hosted) return [];
    const domain = new URL(hosted.domain).origin;
    const redirectUri = hosted.redirectUri ?? new URL(HOSTED_SIGN_IN_CALLBACK_PATH, publicAppUrl).href;
    return [
      {
        name: hosted.name,
        issuer,
        clientId: hosted.clientId,
        authorizationEndpoint: `${domain}/oauth2/authorize`,
        tokenEndpoint: `${domain}/oauth2/token`,
        revocationEndpoint: `${domain}/oauth2/revoke`,
        logoutEndpoint: `${domain}/logout`,
        redirectUri,
        logoutUri: hosted.logoutUri ?? new URL('/login', redirectUri).href,
        scopes: hosted.scopes,
      },
    ];
  });
}

/** The origins the console calls besides its own (each hosted sign-in's token and revocation endpoints): its CSP's `connect-src`. */
export const hostedSignInOrigins = (issuers: readonly ExternalIssuer[]): string[] => [
  ...new Set(issuers.flatMap((i) => (i.hostedSignIn ? [new URL(i.hostedSignIn.domain).origin] : []))),
];

/** `JWT_EXTERNAL_ISSUERS` as JSON text (unset or blank: none), checked; throws naming `source` and what is wrong. */
export function parseExternalIssuers(json: string | undefined, source = 'JWT_EXTERNAL_ISSUERS'): ExternalIssuer[] {
  if (json === undefined || json.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error(`${source} is not valid JSON`);
  }
  const parsed = z.safeParse(externalIssuers, raw);
  if (!parsed.success) throw new Error(`${source}: ${parsed.error.issues.map((issue) => describeIssue(issue)).join('; ')}`);
  return parsed.data;
}
