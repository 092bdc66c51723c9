import { describe, expect, it } from 'vitest';
import { signingMaterialLoader } from '../../shared/adapters/signing.ts';
import { ConfigError, parseConfig } from '../../shared/config.ts';

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
    expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"nope"}]' })).toThrow(/JWT_EXTERNAL_ISSUERS/);
    expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"http://idp.example.com","audiences":["client"]}]' })).toThrow(/JWT_EXTERNAL_ISSUERS.*https/);
    expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"https://idp.example.com","jwksUrl":"http://keys.example.com","audiences":["client"]}]' })).toThrow(/JWT_EXTERNAL_ISSUERS/);
    expect(parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: '[{"issuer":"http://127.0.0.1:4000/pool","audiences":["client"]}]' }).jwt.externalIssuers).toHaveLength(1);
    expect(() => parseConfig({ TABLE_NAME: 't', MAIL_TRANSPORT: 'outbox' })).toThrow(/OUTBOX_DIR/);
  });

  it('refuses an external issuer that names no audience: every app of its users could call the API', () => {
    for (const audiences of ['', ',"audiences":[]', ',"audiences":[""]']) {
      expect(() => parseConfig({ TABLE_NAME: 't', JWT_EXTERNAL_ISSUERS: `[{"issuer":"https://idp.example.com"${audiences}}]` }), audiences).toThrow(/JWT_EXTERNAL_ISSUERS\.0\.audiences/);
    }
  });

  it('merges partial rate limits over the defaults', () => {
    expect(parseConfig({ TABLE_NAME: 't', RATE_LIMITS: '{"auth":50}' }).rateLimits).toEqual({ standard: 100, strict: 20, ingestion: 500, auth: 50 });
  });

  it('a function without the signing secret starts, and fails clearly only if it loads the key', async () => {
    await expect(signingMaterialLoader({})()).rejects.toThrow(/SIGNING_SEED/);
  });
});
