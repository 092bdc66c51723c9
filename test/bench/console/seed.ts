import { seedBenchTenant } from '../reads/tenant.ts';
import { startBenchService } from '../service.ts';
import { round } from '../stats.ts';

const SEED = 20_261_124;
/** Sign-ins and the seeding's own writes only: no limit of the service's gets in the way. */
export const RATE_LIMITS = { auth: 1000, standard: 1_000_000, ingestion: 1_000_000 };

export interface SeedRequest {
  /** The data directory to seed (the local service's, on disk). */
  dir: string;
  /** Traces of each tenant, smallest first. */
  sizes: number[];
  agents: number;
  writers: number;
}

/** A tenant of the seeded directory, and how its user signs in again. */
export interface SeededTenant {
  traces: number;
  email: string;
  items: number;
  seedSeconds: number;
}

export interface SeededData {
  /** When it was seeded: each tenant's traces end then. */
  seededAtMs: number;
  tenants: SeededTenant[];
}

/**
 * One tenant per size in one table of the local service on disk under `dir`, each seeded as the
 * reads bench seeds its tenants (the items the service writes, straight into the store); the service
 * is stopped at the end, so the directory can be kept and opened by another process.
 */
export async function seedConsoleData(request: SeedRequest, progress: (line: string) => void): Promise<SeededData> {
  const seededAtMs = Date.now();
  const service = await startBenchService(RATE_LIMITS, { dataDir: request.dir });
  try {
    const tenants: SeededTenant[] = [];
    for (const traces of request.sizes) {
      const { account, facts } = await seedBenchTenant(service, { traces, agents: request.agents, writers: request.writers, seed: SEED + traces }, progress);
      tenants.push({ traces, email: account.email, items: facts.items, seedSeconds: round(facts.seedSeconds, 1) });
    }
    return { seededAtMs, tenants };
  } finally {
    await service.stop();
  }
}
