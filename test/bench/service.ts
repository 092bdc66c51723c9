import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { LIST_LAYOUT } from '#shared/domain/maintenance/reindex.ts';
import type { PlanKey } from '#shared/domain/plans/plans.ts';
import { createDb, type Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { reindexRepository } from '#shared/store/reindex.ts';
import { type ApiResponse, startTestService, type TestService } from '../support/service.ts';

/** What the local runtime logs when a queue consumer fails a message (it then waits for its visibility timeout). */
const CONSUMER_FAILURE = /reported as failed|consumer threw|dead-letter/;

export type BenchService = TestService & {
  /** The runtime's log lines about failed queue messages, so far. */
  consumerFailures: string[];
};

/**
 * The whole local service in this process, in memory (or on disk under `dataDir`), with the given
 * per-minute rate limits (and the console built in `consoleDir` when given), and without the local
 * runtime's TTL sweep: on AWS expiry costs the service nothing, while the sweep scans the whole table
 * in this thread (seconds for a large one) and would land in the timings.
 */
export async function startBenchService(
  rateLimits: Record<string, number>,
  where: { dataDir?: string | undefined; consoleDir?: string } = {},
): Promise<BenchService> {
  const consumerFailures: string[] = [];
  const log = (line: string) => {
    if (CONSUMER_FAILURE.test(line)) consumerFailures.push(line);
  };
  const service = await startTestService({
    env: { RATE_LIMITS: JSON.stringify(rateLimits) },
    log,
    ttlSweepEveryMs: false,
    ...(where.dataDir ? { dataDir: where.dataDir } : {}),
    ...(where.consoleDir ? { consoleDir: where.consoleDir } : {}),
  });
  // A new table holds nothing of an earlier layout; without this the re-indexing job would walk what the bench seeds, during its timings.
  await reindexRepository(serviceDb()).saveProgress(LIST_LAYOUT, { done: true, items: 0 });
  return Object.assign(service, { consumerFailures });
}

/** Every bench account's password: a bench signs in again by its e-mail (see signUp). */
export const BENCH_PASSWORD = 'bench-password';

export interface BenchAccount {
  email: string;
  token: string;
  apiKey: string;
  tenantId: string;
}

/** A new account with an API key, moved to `plan` (a trial's span quota is smaller than a bench). */
export async function signUp(service: TestService, plan: PlanKey): Promise<BenchAccount> {
  const email = `bench-${Date.now()}@example.com`;
  const registered = expectStatus(
    await service.api('POST', '/auth/register', { body: { email, password: BENCH_PASSWORD, firstName: 'Bench', lastName: 'Mark' } }),
    201,
    'register',
  );
  const token = registered.body.data.accessToken as string;
  const apiKey = expectStatus(await service.api('POST', '/keys', { token, body: { name: 'bench' } }), 201, 'create an API key').body.data.key as string;
  const tenantId = String(decodeJwt(token)['tid']);
  await setPlan(tenantId, plan);
  return { email, token, apiKey, tenantId };
}

/** There is no billing endpoint yet, so the plan is changed in the store, as support would. */
export async function setPlan(tenantId: string, plan: PlanKey): Promise<void> {
  const db = serviceDb();
  await db.doc.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.tenant(tenantId),
      UpdateExpression: 'SET subscription.#plan = :plan, subscription.#status = :status',
      ExpressionAttributeNames: { '#plan': 'plan', '#status': 'status' },
      ExpressionAttributeValues: { ':plan': plan, ':status': plan === 'trial' ? 'trialing' : 'active' },
    }),
  );
}

/** The running service's table; the local runtime has put its name and dynalite's endpoint in the environment. */
export const serviceDb = (): Db => createDb(process.env['TABLE_NAME']!);

export function expectStatus(res: ApiResponse, status: number, what: string): ApiResponse {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}
