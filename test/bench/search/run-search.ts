import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueAccessToken } from '#shared/domain/accounts/jwt.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { startTestService } from '../../support/service.ts';
import { BenchFailure, type Figure, type ScenarioResult } from '../scenario.ts';
import { serviceDb } from '../service.ts';
import { percentile } from '../stats.ts';
import { SEARCH_PHRASES, SEARCH_WORDS } from './corpus.ts';
import { BENCH_TENANT, type BenchLake, benchLake } from './seed.ts';

/** The issue's targets. */
export const TARGET_P95_MS = 1500;
export const TARGET_EXPORT_RSS_MB = 512;

type Kind = 'word' | 'phrase' | 'field' | 'combined' | 'next page';

/** What the bench searches for: words and phrases from everywhere to nowhere, each field, and mixes. */
function queriesOf(lake: BenchLake): Record<Exclude<Kind, 'next page'>, string[]> {
  const sample = lake.samples.find((s) => s.toolOutput) ?? lake.samples[0]!;
  const tracking = sample.toolOutput ? (JSON.parse(sample.toolOutput) as { tracking: string }).tracking : 'TRKNONE';
  return {
    word: [...SEARCH_WORDS.everywhere, ...SEARCH_WORDS.common, ...SEARCH_WORDS.uncommon, ...SEARCH_WORDS.absent, tracking],
    phrase: [...SEARCH_PHRASES, `"${tracking}"`],
    field: [
      'agent:billing-agent',
      'tool:flights.search',
      'status:error',
      'model:gemini-2.5-flash',
      'cost>0.05',
      'duration>20s',
      'tokens>10k',
      'attr.customer.tier:platinum',
      `session:${sample.sessionId}`,
      'error:timeout',
    ],
    combined: [
      'refund agent:support-bot status:error',
      '"payment declined" tool:payments* cost>0.001',
      'hotel agent:trip-planner duration>10s -status:error',
      'zürich attr.deployment.region:eu-west tokens>2k',
      `${tracking} tool:orders.lookup`,
      'invoice -agent:billing-agent model:gpt-4o*',
    ],
  };
}

/** The peak resident set since the last reset (Linux); the sampled peak elsewhere. */
function peakRss(): { reset(): void; read(): number } {
  let sampledPeak = 0;
  const timer = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)), 50);
  timer.unref();
  const linux = process.platform === 'linux';
  return {
    reset() {
      sampledPeak = process.memoryUsage().rss;
      if (linux) writeFileSync('/proc/self/clear_refs', '5');
    },
    read() {
      const hwm = linux ? /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] : undefined;
      return Math.max(sampledPeak, hwm ? Number(hwm) * 1024 : 0);
    },
  };
}

const ms = (n: number) => Math.round(n);

export async function runSearchBench(flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  const lake = await benchLake(flags['traces']!, progress);
  const dataDir = await mkdtemp(join(tmpdir(), 'aos-search-bench-'));
  await mkdir(join(dataDir, 'lake'), { recursive: true });
  // The runtime opens <DATA_DIR>/lake/traces.duckdb: here the seeded lake, which the bench only reads.
  await symlink(lake.path, join(dataDir, 'lake', 'traces.duckdb'));
  const service = await startTestService({
    dataDir,
    env: { RATE_LIMITS: JSON.stringify({ standard: 1_000_000, ingestion: 1_000_000, strict: 1_000, auth: 1_000 }) },
    ttlSweepEveryMs: false,
  });
  const failures: string[] = [];
  const figures: Figure[] = [];
  try {
    const now = new Date();
    await tenantsRepository(serviceDb()).create({
      id: BENCH_TENANT,
      ownerUserId: 'usr_searchbench',
      subscription: { ...newTrialSubscription(now), plan: 'pro', status: 'active', trialEndsAt: null },
      createdAt: now.toISOString(),
    });
    const env = service.environment;
    const { accessToken: token } = await issueAccessToken(
      { userId: 'usr_searchbench', tenantId: BENCH_TENANT, email: 'bench@example.com' },
      await signingMaterialFromSeed(env['SIGNING_SEED']!),
      { issuer: env['JWT_ISSUER']!, audience: 'aos-api', ttlSeconds: 24 * 3600 },
      now,
    );

    const queries = queriesOf(lake);
    const search = async (q: string, cursor?: string) => {
      const startedAt = performance.now();
      const res = await service.api('GET', `/search/traces?q=${encodeURIComponent(q)}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token,
      });
      const elapsed = performance.now() - startedAt;
      if (res.status !== 200) throw new BenchFailure(`search "${q}" answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return { elapsed, hits: res.body.data.length as number, next: res.body.pagination.nextCursor as string | null };
    };
    progress('warming up (one round of every query, not measured)');
    for (const q of Object.values(queries).flat()) await search(q);

    const timings: Record<Kind, number[]> = { word: [], phrase: [], field: [], combined: [], 'next page': [] };
    const hitCounts: string[] = [];
    for (let round = 0; round < flags['repetitions']!; round++) {
      for (const [kind, list] of Object.entries(queries) as Array<[Exclude<Kind, 'next page'>, string[]]>) {
        for (const q of list) {
          const { elapsed, hits, next } = await search(q);
          timings[kind].push(elapsed);
          if (round === 0) hitCounts.push(`\`${q}\`: ${hits}${next ? '+' : ''}`);
          if (next && kind === 'word') timings['next page'].push((await search(q, next)).elapsed);
        }
      }
      progress(`search round ${round + 1} of ${flags['repetitions']} done`);
    }
    for (const [kind, samples] of Object.entries(timings) as Array<[Kind, number[]]>) {
      const p50 = percentile(samples, 0.5);
      const p95 = percentile(samples, 0.95);
      const key = kind.replace(' ', '-');
      figures.push(
        { key: `${key}-p50-ms`, label: `${kind} search p50`, value: ms(p50), unit: 'ms' },
        { key: `${key}-p95-ms`, label: `${kind} search p95`, value: ms(p95), unit: 'ms' },
      );
      if (p95 > TARGET_P95_MS) failures.push(`${kind} search p95 ${ms(p95)} ms is over the ${TARGET_P95_MS} ms target`);
    }

    progress(`exporting all ${lake.traces.toLocaleString('en-US')} traces as JSON lines`);
    const rss = peakRss();
    rss.reset();
    const exportStarted = performance.now();
    const created = await service.api('POST', '/exports', {
      token,
      body: { format: 'jsonl', startDate: new Date(now.getTime() - 366 * 86_400_000).toISOString(), endDate: now.toISOString() },
    });
    if (created.status !== 202) throw new BenchFailure(`the export answered ${created.status}: ${JSON.stringify(created.body)}`);
    let done: { status: string; rows: number | null; bytes: number | null; error?: string };
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      done = (await service.api('GET', `/exports/${created.body.data.id}`, { token })).body.data;
      if (done.status === 'succeeded' || done.status === 'failed') break;
    }
    const exportSeconds = (performance.now() - exportStarted) / 1000;
    const peakMb = Math.round(rss.read() / 2 ** 20);
    if (done.status !== 'succeeded') throw new BenchFailure(`the export failed: ${done.error}`);
    const exported = { rows: done.rows ?? 0, bytes: done.bytes ?? 0 };
    if (exported.rows !== lake.traces) failures.push(`the export wrote ${exported.rows} rows of ${lake.traces} traces`);
    if (peakMb > TARGET_EXPORT_RSS_MB) failures.push(`the export's peak RSS ${peakMb} MB is over the ${TARGET_EXPORT_RSS_MB} MB target`);
    const rowsPerSecond = Math.round(exported.rows / exportSeconds);
    figures.push(
      { key: 'export-rows', label: 'exported rows (traces)', value: exported.rows },
      { key: 'export-seconds', label: 'export time', value: Math.round(exportSeconds), unit: 's' },
      { key: 'export-rows-per-second', label: 'export rows per second', value: rowsPerSecond, unit: 'rows/s' },
      { key: 'export-mb', label: 'export file', value: Math.round(exported.bytes / 2 ** 20), unit: 'MB' },
      { key: 'export-peak-rss-mb', label: 'peak RSS during the export (whole service)', value: peakMb, unit: 'MB' },
    );
    if (lake.seededSeconds !== null) figures.push({ key: 'seed-seconds', label: 'seeding (this run)', value: lake.seededSeconds, unit: 's' });

    progress(`hits on the first page of each query (+: more pages): ${hitCounts.join('; ')}`);
    return { parameters: flags, figures, failures };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
