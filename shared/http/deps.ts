import type { Ports } from '../adapters/ports.ts';
import { config } from '../config.ts';
import type { AccountsDeps } from '../domain/accounts/users.ts';
import type { ApiKeyDeps } from '../domain/accounts/api-key-service.ts';
import type { AgentDeps } from '../domain/agents/agents.ts';
import type { AlertDeps } from '../domain/alerts/service.ts';
import type { AcceptDeps } from '../domain/ingest/accept.ts';
import { logger } from './logger.ts';

/** What the accounts use cases need, cut from the ports and the configuration. */
export const accountsDeps = (ports: Ports): AccountsDeps => ({
  store: ports.store,
  clock: ports.clock,
  ids: ports.ids,
  queue: ports.queue,
  signing: ports.signing,
  jwt: config.jwt,
  publicAppUrl: config.publicAppUrl,
  reportError: (message, err) => logger.error(message, err as Error),
});

export const apiKeyDeps = (ports: Ports): ApiKeyDeps => ({
  apiKeys: ports.store.apiKeys,
  clock: ports.clock,
  signing: ports.signing,
});

export const acceptDeps = (ports: Ports): AcceptDeps => ({ store: ports.store, queue: ports.queue, clock: ports.clock });

/** Agents and alerts need the same ports. */
export const agentDeps = (ports: Ports): AgentDeps & AlertDeps => ({ store: ports.store, clock: ports.clock, ids: ports.ids, queue: ports.queue });
export const alertDeps = agentDeps;

