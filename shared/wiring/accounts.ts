import { config } from '../config.ts';
import type { ApiKeyDeps } from '../domain/accounts/api-key-service.ts';
import type { Ports } from '../domain/store.ts';
import type { CredentialPorts } from '../http/auth.ts';
import { logger, thrown } from '../observability/logger.ts';

/** The ports plus what the accounts use cases take from the configuration. */
export const accountsDeps = <P extends object>(ports: P) => ({
  ...ports,
  jwt: config.jwt,
  publicAppUrl: config.publicAppUrl,
  signUpPlan: config.signUpPlan,
  reportError: (message: string, err: unknown) => logger.error(message, thrown(err)),
});

export const apiKeyDeps = (ports: Ports<'apiKeys'> & Pick<CredentialPorts, 'signing'>): ApiKeyDeps => ({
  apiKeys: ports.store.apiKeys,
  clock: ports.clock,
  signing: ports.signing,
});
