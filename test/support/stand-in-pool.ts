import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * A stand-in Cognito user pool for tests: its issuer a pool's URL, its JWKS served on loopback, its
 * tokens signed here. `issuers` is the service's `JWT_EXTERNAL_ISSUERS` that trusts it for `clientId`.
 */
export async function startStandInPool(clientId = 'dashboard-client') {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool';
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/eu-west-1_Pool/.well-known/jwks.json`;
  /** A token of the pool with these claims, for `subject`, valid ten minutes. */
  const token = (claims: Record<string, unknown>, subject = 'cognito-sub-42') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'pool-key' })
      .setIssuer(issuer)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  return {
    issuers: JSON.stringify([{ issuer, jwksUrl, audiences: [clientId] }]),
    token,
    /** An access token as a pool's pre-token-generation trigger makes it: the profile's claims added. */
    accessToken: (profile: Record<string, unknown>, subject?: string) =>
      token({ ...profile, token_use: 'access', client_id: clientId, scope: 'aws.cognito.signin.user.admin' }, subject),
    close: () => server.close(),
  };
}
