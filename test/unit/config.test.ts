import { describe, expect, it } from 'vitest';
import { signingMaterialLoader } from '#shared/adapters/signing.ts';
import { ConfigError, parseConfig } from '#shared/config.ts';
import { hostedSignInOrigins, hostedSignInProviders, parseExternalIssuers } from '#shared/external-issuers.ts';
import { parseLakeSettings } from '#shared/lake-config.ts';
import { consoleContentSecurityPolicy } from '../../console/security-headers.ts';

describe('configuration', () => {
  it('needs only the table name, with documented defaults for the rest', () => {
    const config = parseConfig({ TABLE_NAME: 't' });
    expect(config.rateLimits).toEqual({ standard: 100, strict: 20, ingestion: 500, auth: 20 });
    expect(config.jwt).toMatchObject({ issuer: 'urn:aos:local', audience: 'aos-api', ttlSeconds: 3600, externalIssuers: [] });
  });

  it('fails fast, naming the variable, on a bad value', () => {
    expect(() => parseConfig({})).toThrow(/TABLE_NAME/);
    expect(() => parseConfig({ TABLE_NAME: 't', RATE_LIMITS: '{"strict":0}' })).toThrow(/RATE_LIMITS/);
    expect(() => parseConfig({ TABLE_NAME: 't', RATE_LIMITS: 'not json' })).toThrow(ConfigError);
    expect(() => parseConfig({ TABLE_NAME: 't', SIGN_UP_PLAN: 'gold' })).toThrow(/SIGN_UP_PLAN/);
    expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"nope"}]' })).toThrow(/JWT_EXTERNAL_ISSUERS/);
    expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"http://idp.example.com","audiences":["client"]}]' })).toThrow(
      /JWT_EXTERNAL_ISSUERS.*https/,
    );
    expect(() =>
      parseConfig({
        TABLE_NAME: 't',
        JWT_EXTERNAL_ISSUERS: '[{"issuer":"https://idp.example.com","jwksUrl":"http://keys.example.com","audiences":["client"]}]',
      }),
    ).toThrow(/JWT_EXTERNAL_ISSUERS/);
    expect(
      parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"http://127.0.0.1:4000/pool","audiences":["client"]}]' }).jwt.externalIssuers,
    ).toHaveLength(1);
    expect(() => parseConfig({ TABLE_NAME: 't', MAIL_TRANSPORT: 'outbox' })).toThrow(/OUTBOX_DIR/);
  });

  it('refuses a local lake memory limit below what the lake was measured to work with', () => {
    const lake = (LAKE_MEMORY_LIMIT?: string) =>
      parseLakeSettings({ LAKE: 'duckdb', LAKE_DUCKDB_PATH: 'lake.duckdb', EXPORTS_DIR: 'exports', LAKE_MEMORY_LIMIT });
    expect(lake().local?.memoryLimit).toBe('128MB');
    for (const size of ['128MB', '0.5GB', '1GiB', '200 mb']) expect(lake(size).local?.memoryLimit, size).toBe(size);
    for (const size of ['64MB', '122MiB', '127.9MB', '100000KB']) expect(() => lake(size), size).toThrow(/LAKE_MEMORY_LIMIT: must be at least 128MB/);
    expect(() => lake('lots')).toThrow(/LAKE_MEMORY_LIMIT: must be a size such as 128MB/);
    for (const engine of ['athena', undefined]) expect(() => parseLakeSettings({ LAKE: engine, LAKE_MEMORY_LIMIT: '64MB' }), engine).not.toThrow();
  });

  it('refuses an external issuer that names no audience: every app of its users could call the API', () => {
    for (const audiences of ['', ',"audiences":[]', ',"audiences":[""]']) {
      expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: `[{"issuer":"https://idp.example.com"${audiences}}]` }), audiences).toThrow(
        /JWT_EXTERNAL_ISSUERS\.0\.audiences/,
      );
    }
  });

  it('merges partial rate limits over the defaults', () => {
    expect(parseConfig({ TABLE_NAME: 't', RATE_LIMITS: '{"auth":50}' }).rateLimits).toEqual({ standard: 100, strict: 20, ingestion: 500, auth: 50 });
  });

  it('a function without the signing secret starts, and fails clearly only if it loads the key', async () => {
    await expect(signingMaterialLoader({})()).rejects.toThrow(/SIGNING_SEED/);
  });

  describe('a hosted sign-in (a Cognito domain and public app client the console signs users in through)', () => {
    const POOL = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf';
    const DOMAIN = 'https://acme.auth.eu-west-1.amazoncognito.com';
    const withHosted = (hostedSignIn: Record<string, unknown>, issuer: Record<string, unknown> = {}) =>
      JSON.stringify([
        { issuer: POOL, audiences: ['client-1'], hostedSignIn: { name: 'Acme SSO', domain: DOMAIN, clientId: 'client-1', ...hostedSignIn }, ...issuer },
      ]);
    const configWith = (hostedSignIn: Record<string, unknown>, env: Record<string, string> = {}, issuer: Record<string, unknown> = {}) =>
      parseConfig({ TABLE_NAME: 't', PUBLIC_APP_URL: 'https://console.example.com', JWT_EXTERNAL_ISSUERS: withHosted(hostedSignIn, issuer), ...env });

    it("answers the console Cognito's endpoints, the callback at PUBLIC_APP_URL, its /login after logout and the OpenID scopes by default", () => {
      const config = configWith({});
      expect(hostedSignInProviders(config.jwt.externalIssuers, config.publicAppUrl)).toEqual([
        {
          name: 'Acme SSO',
          issuer: POOL,
          clientId: 'client-1',
          authorizationEndpoint: `${DOMAIN}/oauth2/authorize`,
          tokenEndpoint: `${DOMAIN}/oauth2/token`,
          revocationEndpoint: `${DOMAIN}/oauth2/revoke`,
          logoutEndpoint: `${DOMAIN}/logout`,
          redirectUri: 'https://console.example.com/auth/callback',
          logoutUri: 'https://console.example.com/login',
          scopes: ['openid', 'email', 'profile'],
        },
      ]);
      expect(hostedSignInOrigins(config.jwt.externalIssuers)).toEqual([DOMAIN]);
      expect(consoleContentSecurityPolicy(hostedSignInOrigins(config.jwt.externalIssuers))).toContain(`connect-src 'self' ${DOMAIN};`);
    });

    it('takes the redirect and logout URLs and the scopes it is given', () => {
      const config = configWith({
        redirectUri: 'https://d1.cloudfront.net/auth/callback',
        logoutUri: 'https://d1.cloudfront.net/goodbye',
        scopes: ['openid', 'email'],
      });
      expect(hostedSignInProviders(config.jwt.externalIssuers, config.publicAppUrl)[0]).toMatchObject({
        redirectUri: 'https://d1.cloudfront.net/auth/callback',
        logoutUri: 'https://d1.cloudfront.net/goodbye',
        scopes: ['openid', 'email'],
      });
    });

    it('is refused at load, naming the field, when it could not work or would hold a secret', () => {
      const refused: Array<[Record<string, unknown>, RegExp]> = [
        [{ clientId: 'client-2' }, /JWT_EXTERNAL_ISSUERS\.0\.hostedSignIn\.clientId: must be one of the audiences/],
        [{ domain: 'http://acme.example.com' }, /hostedSignIn\.domain: must be https/],
        [{ domain: `${DOMAIN}/oauth2` }, /hostedSignIn\.domain: is the sign-in domain alone/],
        [{ domain: 'not a url' }, /hostedSignIn\.domain: Invalid URL/],
        [{ redirectUri: 'not a url' }, /hostedSignIn\.redirectUri: Invalid URL/],
        [{ redirectUri: 'https://console.example.com/login' }, /hostedSignIn\.redirectUri: must be the console's \/auth\/callback page/],
        [{ redirectUri: 'http://console.example.com/auth/callback' }, /hostedSignIn\.redirectUri: must be https/],
        [{ logoutUri: 'http://console.example.com/login' }, /hostedSignIn\.logoutUri: must be https/],
        [{ clientSecret: 's3cr3t' }, /hostedSignIn\.clientSecret: a hosted sign-in uses a public app client/],
        [{ name: ' ' }, /hostedSignIn\.name/],
        [{ scopes: [] }, /hostedSignIn\.scopes/],
        [{ scopes: ['openid email'] }, /hostedSignIn\.scopes\.0: is not an OAuth scope/],
        [{ tokenEndpoint: 'https://elsewhere.example.com/token' }, /hostedSignIn/],
      ];
      for (const [hosted, message] of refused) expect(() => configWith(hosted), JSON.stringify(hosted)).toThrow(message);
      expect(() => configWith({ domain: undefined })).toThrow(/hostedSignIn\.domain/);
    });

    it('needs an https console for its default callback, and a name of its own for each button', () => {
      expect(() => configWith({}, { PUBLIC_APP_URL: 'http://console.example.com' })).toThrow(/PUBLIC_APP_URL must be https/);
      expect(
        configWith({ redirectUri: 'https://console.example.com/auth/callback' }, { PUBLIC_APP_URL: 'http://console.example.com' }).jwt.externalIssuers,
      ).toHaveLength(1);
      expect(configWith({}, { PUBLIC_APP_URL: 'http://127.0.0.1:3000' }).jwt.externalIssuers).toHaveLength(1);
      const twice = JSON.stringify(
        [1, 2].map((n) => ({ issuer: `${POOL}${n}`, audiences: ['c'], hostedSignIn: { name: 'Acme SSO', domain: DOMAIN, clientId: 'c' } })),
      );
      expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: twice })).toThrow(/each hosted sign-in needs a name of its own/);
    });

    it('is checked the same way where the console is served (the local server, cdk synth)', () => {
      expect(parseExternalIssuers(undefined)).toEqual([]);
      expect(parseExternalIssuers(withHosted({}))[0]?.hostedSignIn?.scopes).toEqual(['openid', 'email', 'profile']);
      expect(() => parseExternalIssuers('[{')).toThrow('JWT_EXTERNAL_ISSUERS is not valid JSON');
      expect(() => parseExternalIssuers(withHosted({ clientId: 'client-2' }))).toThrow(
        'JWT_EXTERNAL_ISSUERS: 0.hostedSignIn.clientId: must be one of the audiences',
      );
    });
  });
});
