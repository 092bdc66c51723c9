import type { Ports } from '../adapters/ports.ts';
import { config } from '../config.ts';
import type { ApiKeyDeps } from '../domain/accounts/api-key-service.ts';
import { agentsRepository } from '../store/agents.ts';
import { rollupsRepository } from '../store/rollups.ts';
import { tenantsRepository } from '../store/tenants.ts';
import { tracesRepository } from '../store/traces.ts';
import type { CredentialPorts } from './auth.ts';
import { logger } from './logger.ts';

/** The ports plus what the accounts use cases take from the configuration. */
export const accountsDeps = <P extends object>(ports: P) => ({
  ...ports,
  jwt: config.jwt,
  publicAppUrl: config.publicAppUrl,
  reportError: (message: string, err: unknown) => logger.error(message, err as Error),
});

export const apiKeyDeps = (ports: Ports<'apiKeys'> & Pick<CredentialPorts, 'signing'>): ApiKeyDeps => ({
  apiKeys: ports.store.apiKeys,
  clock: ports.clock,
  signing: ports.signing,
});

/** What an agent as the API shows it reads: the agent, its plan's retention, its latest trace and its rollups. */
export const AGENT_REPOSITORIES = { agents: agentsRepository, tenants: tenantsRepository, traces: tracesRepository, rollups: rollupsRepository };
