import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BrowserContext, chromium } from 'playwright-core';
import { ensureConsoleBuildApart } from '../../../console/build.ts';
import { chromiumLaunchOptions } from '../../support/chromium.ts';
import { sizeName } from '../reads/figures.ts';
import { BenchFailure, type Figure, type ScenarioResult } from '../scenario.ts';
import { BENCH_PASSWORD, startBenchService } from '../service.ts';
import { percentile, round } from '../stats.ts';
import type { ConsoleData } from './data.ts';
import { RATE_LIMITS, type SeededTenant } from './seed.ts';

/** The issue's targets. */
const FIRST_LOAD_JS_TARGET_KB = 200;
const INTERACTIVE_TARGET_MS = 1000;
const WARMUP_LOADS = 2;

export interface MeasureRequest {
  flags: Record<string, number>;
  data: Omit<ConsoleData, 'discard'>;
}

type Load = Awaited<ReturnType<typeof timeTracesPage>>;

/**
 * The traces page as a user opens it, for each seeded tenant (smallest first) in the service opened on
 * the seeded directory: a fresh browser profile (nothing cached) signed in by its refresh cookie,
 * navigating to `/traces`; interactive = the first page of traces drawn. The JavaScript it loaded is
 * weighed gzipped (zlib's default level, as CloudFront compresses it).
 */
export async function runConsoleBench({ flags, data }: MeasureRequest, progress: (line: string) => void): Promise<ScenarioResult> {
  const build = await ensureConsoleBuildApart();
  // As the other benches start it: no TTL sweep, and no re-indexing walk of the seeded table.
  const service = await startBenchService(RATE_LIMITS, { dataDir: data.dir, consoleDir: build.dir });
  const browser = await chromium.launch(await chromiumLaunchOptions());
  try {
    const origin = service.baseUrl.replace(/\/api$/, '');
    const sizes: Array<{ tenant: SeededTenant; loads: Load[] }> = [];
    for (const tenant of data.tenants) {
      const signedIn = await service.api('POST', '/auth/login', { body: { email: tenant.email, password: BENCH_PASSWORD } });
      if (signedIn.status !== 200) throw new BenchFailure(`signing in to the ${sizeName(tenant.traces)} tenant answered ${signedIn.status}`);
      let refreshToken = refreshCookieOf(signedIn.headers);
      const loads: Load[] = [];
      const total = WARMUP_LOADS + flags['repetitions']!;
      for (let i = 0; i < total; i++) {
        const context = await browser.newContext({ baseURL: origin, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
        await context.addCookies([{ name: 'aos_refresh', value: refreshToken, url: `${origin}/api/auth`, httpOnly: true, secure: true, sameSite: 'Strict' }]);
        const load = await timeTracesPage(context);
        refreshToken = (await context.cookies()).find((c) => c.name === 'aos_refresh')!.value;
        await context.close();
        if (i >= WARMUP_LOADS) loads.push(load);
        progress(
          `${sizeName(tenant.traces)} load ${i + 1}/${total}${i < WARMUP_LOADS ? ' (warm-up)' : ''}: interactive in ${Math.round(load.interactiveMs)} ms (first row drawn at ${Math.round(load.firstRowMs)} ms), POST /auth/refresh sent at ${Math.round(load.refreshSentMs)} ms and answered in ${Math.round(load.refreshMs)} ms, GET /spans/traces sent at ${Math.round(load.listSentMs)} ms and answered in ${Math.round(load.listMs)} ms`,
        );
      }
      sizes.push({ tenant, loads });
    }

    const large = sizes.at(-1)!;
    const small = sizes[0]!;
    const jsFiles = [...new Set(large.loads.flatMap((l) => l.jsFiles))];
    let gzipped = 0;
    let raw = 0;
    for (const file of jsFiles) {
      const bytes = await readFile(join(build.dir, file));
      raw += bytes.length;
      gzipped += gzipSync(bytes).length;
    }
    const firstLoadKb = round(gzipped / 1024, 1);
    const p95Of = (loads: Load[]) =>
      percentile(
        loads.map((l) => l.interactiveMs),
        0.95,
      );
    const p95 = p95Of(large.loads);
    const failures = [
      ...(firstLoadKb > FIRST_LOAD_JS_TARGET_KB ? [`the traces page loads ${firstLoadKb} KB of JavaScript gzipped, over ${FIRST_LOAD_JS_TARGET_KB} KB`] : []),
      ...(p95 > INTERACTIVE_TARGET_MS
        ? [`the traces page is interactive in ${Math.round(p95)} ms (p95) at ${sizeName(large.tenant.traces)} traces, over ${INTERACTIVE_TARGET_MS} ms`]
        : []),
    ];
    return {
      parameters: flags,
      figures: [
        ...sizes.flatMap(({ tenant }) => [
          { key: `traces${tenant.traces}`, label: `${sizeName(tenant.traces)}: traces seeded (one tenant, 30 days)`, value: tenant.traces },
          {
            key: `seedSeconds${tenant.traces}`,
            label: `${sizeName(tenant.traces)}: seeding, wall clock${data.reused ? ` (earlier, ${new Date(data.seededAtMs).toISOString().slice(0, 16)} UTC; reused from .bench-data/)` : ''}`,
            value: tenant.seedSeconds,
            unit: 's',
          },
          { key: `items${tenant.traces}`, label: `${sizeName(tenant.traces)}: items seeded`, value: tenant.items },
        ]),
        { key: 'firstLoadJsGzipKb', label: 'traces page first-load JS, gzipped', value: firstLoadKb, unit: 'KB' },
        { key: 'firstLoadJsKb', label: 'traces page first-load JS, minified', value: round(raw / 1024, 1), unit: 'KB' },
        { key: 'firstLoadJsFiles', label: 'JavaScript files of the first load', value: jsFiles.length },
        ...sizes.flatMap(({ tenant, loads }) => loadFigures(tenant.traces, loads)),
        {
          key: 'interactiveP95Ratio',
          label: `traces page interactive, p95 at ${sizeName(large.tenant.traces)} ÷ p95 at ${sizeName(small.tenant.traces)}`,
          value: round(p95 / p95Of(small.loads), 2),
        },
        { key: 'firstLoadJsWithinTarget', label: `first-load JS within ${FIRST_LOAD_JS_TARGET_KB} KB`, value: firstLoadKb <= FIRST_LOAD_JS_TARGET_KB },
        {
          key: 'interactiveWithinTarget',
          label: `interactive within ${INTERACTIVE_TARGET_MS} ms (p95) at ${sizeName(large.tenant.traces)}`,
          value: p95 <= INTERACTIVE_TARGET_MS,
        },
      ],
      failures,
    };
  } finally {
    await browser.close();
    await service.stop();
  }
}

/** What each tenant's loads are summed up by: key, label, the timing, its percentile. */
const LOAD_FIGURES: ReadonlyArray<[string, string, (load: Load) => number, number]> = [
  ['interactiveP50Ms', 'traces page interactive, p50', (l) => l.interactiveMs, 0.5],
  ['interactiveP95Ms', 'traces page interactive, p95', (l) => l.interactiveMs, 0.95],
  ['firstRowP50Ms', "first row of traces in the page's document, p50 (interactive once it is painted)", (l) => l.firstRowMs, 0.5],
  ['refreshSentP50Ms', 'POST /auth/refresh sent, after the navigation started, p50', (l) => l.refreshSentMs, 0.5],
  ['refreshP50Ms', 'POST /auth/refresh from the page (the sign-in it starts with), p50', (l) => l.refreshMs, 0.5],
  ['listTracesSentP50Ms', 'GET /spans/traces sent, after the navigation started, p50', (l) => l.listSentMs, 0.5],
  ['listTracesP50Ms', 'GET /spans/traces from the page, p50', (l) => l.listMs, 0.5],
  ['listTracesP95Ms', 'GET /spans/traces from the page, p95', (l) => l.listMs, 0.95],
];

const loadFigures = (traces: number, loads: Load[]): Figure[] =>
  LOAD_FIGURES.map(([key, label, pick, q]) => ({
    key: `${key}${traces}`,
    label: `${sizeName(traces)}: ${label}`,
    value: round(percentile(loads.map(pick), q)),
    unit: 'ms',
  }));

const refreshCookieOf = (headers: Headers): string => /aos_refresh=([^;]+)/.exec(headers.getSetCookie().join('\n'))![1]!;

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
