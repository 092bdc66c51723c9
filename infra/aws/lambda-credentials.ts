/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias): Lambda
 * hands the function role's credentials to the function in its environment, so the node chain's
 * other providers (SSO, STS, instance metadata, ini files and the clients they use, about 95 KB
 * minified) would only ever be loaded to be skipped.
 */
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
