import { config } from '#shared/config.ts';
import { autoResolveQuietAlerts } from '#shared/domain/alerts/auto-resolve.ts';
import type { Ports } from '#shared/domain/store.ts';
import { instrumented } from '#shared/observability/handler.ts';
import { logger } from '#shared/observability/logger.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { alertsRepository } from '#shared/store/alerts.ts';
import { portsOf } from '#shared/wiring/ports.ts';

/** Scheduled: resolves alerts that have been quiet for ALERT_QUIET_HOURS. */
export const autoResolveHandler = (getPorts: () => Ports<'alerts' | 'agents'> = portsOf({ alerts: alertsRepository, agents: agentsRepository })) =>
  instrumented(async () => {
    const ports = getPorts();
    const result = await autoResolveQuietAlerts({ store: ports.store, clock: ports.clock, quietHours: config.alerts.quietHours });
    logger.info('alerts auto-resolve', result);
    return result;
  });

export const handler = autoResolveHandler();
