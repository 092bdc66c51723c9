/**
 * Stands in for `@aws-sdk/token-providers` in the Lambda bundles (an esbuild alias), where only the
 * Bedrock Runtime client imports it, for its bearer-token (Bedrock API key) scheme. A function can be
 * given an API key only in its environment (`AWS_BEARER_TOKEN_BEDROCK`); the node chain's SSO token
 * provider, and the SSO OIDC client it brings (25 KB minified in all), could only ever fail there.
 */
import { getBearerTokenEnvKey } from '@aws-sdk/core/httpAuthSchemes';
import { TokenProviderError } from '@smithy/core/config';
import type { TokenIdentityProvider } from '@smithy/types';

/** The token in the service's environment variable (`AWS_BEARER_TOKEN_<SIGNING NAME>`). */
export const fromEnvSigningName =
  ({ signingName }: { signingName?: string } = {}): TokenIdentityProvider =>
  async () => {
    const key = signingName ? getBearerTokenEnvKey(signingName) : undefined;
    const token = key ? process.env[key] : undefined;
    if (!token) throw new TokenProviderError(`no token in ${key ?? 'the environment: no signing name given'}`, { tryNextLink: true });
    return { token };
  };

/** The end of the client's chain, after the environment: a Lambda function has no SSO session. */
export const nodeProvider = (): TokenIdentityProvider => async () => {
  throw new TokenProviderError('no Bedrock API key in the environment (AWS_BEARER_TOKEN_BEDROCK), and a Lambda function has no SSO token', { tryNextLink: false });
};
