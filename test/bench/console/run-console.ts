import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BrowserContext, chromium } from 'playwright-core';
import { BUCKET_MS, bucketStart } from '#shared/domain/analytics/buckets.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { epochSeconds } from '#shared/store/client.ts';
import { ensureConsoleBuild } from '../../../console/build.ts';
import { chromiumLaunchOptions } from '../../support/chromium.ts';
import { seedingFigures } from '../analytics/figures.ts';
import { seedTenant } from '../analytics/seed.ts';
import { BenchFailure, type ScenarioResult } from '../scenario.ts';
import { serviceDb, startBenchService } from '../service.ts';
import { percentile, round } from '../stats.ts';

const SEED = 20_261_124;
const SEEDED_DAYS = 30;
/** The targets. */
const FIRST_LOAD_JS_TARGET_KB = 200;
const INTERACTIVE_TARGET_MS = 1000;
const WARMUP_LOADS = 2;

/**
 * The traces page as a user opens it: a fresh browser profile (nothing cached) signed in by its
 * refresh cookie, navigating to `/traces`; interactive = the first page of traces drawn. The
 * JavaScript it loaded is weighed gzipped (zlib's default level, as CloudFront compresses it).
 */
export async function runConsoleBench(flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  const build = await ensureConsoleBuild();
  // As the other benches start it: no TTL sweep, and no re-indexing walk of what the bench seeds (every
  // minute it would read the whole table through the same process for up to 45 s, during the timed loads).
  const service = await startBenchService({ auth: 100_000, standard: 100_000, ingestion: 100_000 }, { consoleDir: build.dir });
  const browser = await chromium.launch(await chromiumLaunchOptions());
  try {
    const origin = service.baseUrl.replace(/\/api$/, '');
    const registered = await service.api('POST', '/auth/register', {
      body: { email: `console-bench-${Date.now()}@example.com`, password: 'bench-password', firstName: 'Bench', lastName: 'Mark' },
    });
    if (registered.status !== 201) throw new BenchFailure(`register answered ${registered.status}`);
    let refreshToken = /aos_refresh=([^;]+)/.exec(registered.headers.getSetCookie().join('\n'))![1]!;
    const tenantId = tenantOf(registered.body.data.accessToken as string);

    const endMs = bucketStart(Date.now(), 'minute');
    progress(`seeding ${flags['traces']!.toLocaleString('en-US')} traces over ${SEEDED_DAYS} days`);
    const now = new Date();
    const seeded = await seedTenant(
      serviceDb(),
      { tenantId, revision: now.getTime(), expiresAt: epochSeconds(now) + PLANS.trial.features.retention * 86_400 + SEEDED_DAYS * 86_400 },
      { traces: flags['traces']!, agents: flags['agents']!, startMs: endMs - SEEDED_DAYS * BUCKET_MS.day, endMs, writers: flags['writers']!, seed: SEED },
      progress,
    );

    const loads: Array<Awaited<ReturnType<typeof timeTracesPage>>> = [];
    const total = WARMUP_LOADS + flags['repetitions']!;
    for (let i = 0; i < total; i++) {
      const context = await browser.newContext({ baseURL: origin, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
      await context.addCookies([{ name: 'aos_refresh', value: refreshToken, url: `${origin}/api/auth`, httpOnly: true, secure: true, sameSite: 'Strict' }]);
      const load = await timeTracesPage(context);
      refreshToken = (await context.cookies()).find((c) => c.name === 'aos_refresh')!.value;
      await context.close();
      if (i >= WARMUP_LOADS) loads.push(load);
      progress(
        `load ${i + 1}/${total}${i < WARMUP_LOADS ? ' (warm-up)' : ''}: interactive in ${Math.round(load.interactiveMs)} ms (first row drawn at ${Math.round(load.firstRowMs)} ms), POST /auth/refresh sent at ${Math.round(load.refreshSentMs)} ms and answered in ${Math.round(load.refreshMs)} ms, GET /spans/traces sent at ${Math.round(load.listSentMs)} ms and answered in ${Math.round(load.listMs)} ms`,
      );
    }

    const jsFiles = [...new Set(loads.flatMap((l) => l.jsFiles))];
    let gzipped = 0;
    let raw = 0;
    for (const file of jsFiles) {
      const bytes = await readFile(join(build.dir, file));
      raw += bytes.length;
      gzipped += gzipSync(bytes).length;
    }
    const interactive = loads.map((l) => l.interactiveMs);
    const list = loads.map((l) => l.listMs);
    const refresh = loads.map((l) => l.refreshMs);
    const p50Of = (pick: (load: (typeof loads)[number]) => number) => round(percentile(loads.map(pick), 0.5));
    const firstLoadKb = round(gzipped / 1024, 1);
    const p95 = percentile(interactive, 0.95);
    const failures = [
      ...(firstLoadKb > FIRST_LOAD_JS_TARGET_KB ? [`the traces page loads ${firstLoadKb} KB of JavaScript gzipped, over ${FIRST_LOAD_JS_TARGET_KB} KB`] : []),
      ...(p95 > INTERACTIVE_TARGET_MS ? [`the traces page is interactive in ${Math.round(p95)} ms (p95), over ${INTERACTIVE_TARGET_MS} ms`] : []),
    ];
    return {
      parameters: flags,
      figures: [
        ...seedingFigures(seeded),
        { key: 'firstLoadJsGzipKb', label: 'traces page first-load JS, gzipped', value: firstLoadKb, unit: 'KB' },
        { key: 'firstLoadJsKb', label: 'traces page first-load JS, minified', value: round(raw / 1024, 1), unit: 'KB' },
        { key: 'firstLoadJsFiles', label: 'JavaScript files of the first load', value: jsFiles.length },
        { key: 'interactiveP50Ms', label: 'traces page interactive, p50', value: round(percentile(interactive, 0.5)), unit: 'ms' },
        { key: 'interactiveP95Ms', label: 'traces page interactive, p95', value: round(p95), unit: 'ms' },
        {
          key: 'firstRowP50Ms',
          label: "first row of traces in the page's document, p50 (interactive once it is painted)",
          value: p50Of((l) => l.firstRowMs),
          unit: 'ms',
        },
        {
          key: 'refreshSentP50Ms',
          label: 'POST /auth/refresh sent, after the navigation started, p50',
          value: p50Of((l) => l.refreshSentMs),
          unit: 'ms',
        },
        {
          key: 'refreshP50Ms',
          label: 'POST /auth/refresh from the page (the sign-in it starts with), p50',
          value: round(percentile(refresh, 0.5)),
          unit: 'ms',
        },
        { key: 'listTracesSentP50Ms', label: 'GET /spans/traces sent, after the navigation started, p50', value: p50Of((l) => l.listSentMs), unit: 'ms' },
        { key: 'listTracesP50Ms', label: 'GET /spans/traces from the page, p50', value: round(percentile(list, 0.5)), unit: 'ms' },
        { key: 'listTracesP95Ms', label: 'GET /spans/traces from the page, p95', value: round(percentile(list, 0.95)), unit: 'ms' },
        { key: 'firstLoadJsWithinTarget', label: `first-load JS within ${FIRST_LOAD_JS_TARGET_KB} KB`, value: firstLoadKb <= FIRST_LOAD_JS_TARGET_KB },
        { key: 'interactiveWithinTarget', label: `interactive within ${INTERACTIVE_TARGET_MS} ms (p95)`, value: p95 <= INTERACTIVE_TARGET_MS },
      ],
      failures,
    };
  } finally {
    await browser.close();
    await service.stop();
  }
}

/** The tenant the access token names (its `tid` claim): the seeding writes straight to the store. */
const tenantOf = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { tid: string }).tid;

/**
 * Notes, in the page, when the first row of traces is in the document, and when it is drawn: the frame
 * holding it painted and the page's main thread free for the next task (input, a click), i.e.
 * interactive. The page's own clock: Playwright's waitFor polls at growing intervals (up to 500 ms),
 * which would add its own wait to a slow load.
 */
const NOTE_FIRST_ROW = `window.interactive = new Promise((interactive) => new MutationObserver((_, observer) => {
  if (!document.querySelector('table.traces tbody tr')) return;
  window.firstRowMs = performance.now();
  observer.disconnect();
  requestAnimationFrame(() => {
    const next = new MessageChannel();
    next.port1.onmessage = () => interactive(performance.now());
    next.port2.postMessage(undefined);
  });
}).observe(document, { childList: true, subtree: true }))`;

async function timeTracesPage(context: BrowserContext) {
  const page = await context.newPage();
  await page.addInitScript(NOTE_FIRST_ROW);
  await page.goto('/traces');
  await page.locator('table.traces tbody tr').first().waitFor({ timeout: 30_000 });
  // Evaluated over the DevTools protocol (which the page's CSP does not stop, unlike waitForFunction's predicate).
  const timings = (await page.evaluate(`window.interactive.then((interactiveMs) => ({
    interactiveMs,
    firstRowMs: window.firstRowMs,
    resources: performance.getEntriesByType('resource').map((r) => ({ name: r.name, startTime: r.startTime, duration: r.duration })),
  }))`)) as { interactiveMs: number; firstRowMs: number; resources: Array<{ name: string; startTime: number; duration: number }> };
  // When a request was sent shows what the page waited for before asking (a chain of one request after another).
  const request = (path: string) => timings.resources.find((r) => new URL(r.name).pathname === path) ?? { startTime: Number.NaN, duration: Number.NaN };
  const jsFiles = timings.resources
    .map((r) => new URL(r.name).pathname)
    .filter((path) => path.endsWith('.js'))
    .map((path) => path.slice(1));
  const refresh = request('/api/auth/refresh');
  const list = request('/api/spans/traces');
  return {
    interactiveMs: timings.interactiveMs,
    firstRowMs: timings.firstRowMs,
    refreshSentMs: refresh.startTime,
    refreshMs: refresh.duration,
    listSentMs: list.startTime,
    listMs: list.duration,
    jsFiles,
  };
}
