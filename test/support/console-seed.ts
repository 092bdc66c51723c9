import { decodeJwt } from 'jose';
import type { BrowserContext } from 'playwright-core';
import type { TestService } from './service.ts';

export const SEED_PASSWORD = 'correct-horse-battery';

export interface SeededTenant {
  email: string;
  tenantId: string;
  apiKey: string;
  /** The refresh token registration set: a browser context with it is signed in. */
  refreshToken: string;
  traceId: string;
  bigTraceId: string;
  sessionId: string;
  agentId: string;
  alertId: string;
  experimentId: string;
}

const MINUTE = 60_000;

/** One agent run: a root, an LLM call with a conversation, tool calls, some failing. */
function run(
  traceId: string,
  agentName: string,
  at: number,
  options: { fail?: boolean; ask?: string; answer?: string; sessionId?: string; userId?: string; experimentId?: string; variant?: string; model?: string },
) {
  const common = {
    traceId,
    agentName,
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    ...(options.userId ? { userId: options.userId } : {}),
    ...(options.experimentId ? { experimentId: options.experimentId, variant: options.variant } : {}),
  };
  const model = options.model ?? 'gpt-4o-mini';
  return [
    {
      ...common,
      spanId: 'root',
      name: 'answer ticket',
      kind: 'agent',
      startTime: at,
      endTime: at + 2600,
      status: options.fail ? 'error' : 'ok',
      ...(options.fail ? { statusMessage: 'order lookup failed' } : {}),
      input: options.ask ?? 'Where is my order #1042?',
      output: options.fail ? 'Sorry, I could not look it up.' : (options.answer ?? 'It ships tomorrow.'),
    },
    {
      ...common,
      spanId: 'plan',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      model,
      provider: 'openai',
      inputTokens: 900 + (at % 400),
      outputTokens: 120,
      startTime: at + 50,
      endTime: at + 950,
      input: JSON.stringify([
        { role: 'system', content: 'You are a support agent for an online shop. Answer briefly.' },
        { role: 'user', content: 'Where is my order #1042?' },
      ]),
      output: JSON.stringify([{ role: 'assistant', content: 'I will look the order up.' }]),
    },
    {
      ...common,
      spanId: 'lookup',
      parentSpanId: 'root',
      name: 'lookup order',
      kind: 'tool',
      toolName: 'orders.lookup',
      startTime: at + 1000,
      endTime: at + 1800,
      status: options.fail ? 'error' : 'ok',
      ...(options.fail ? { errorType: 'Timeout', statusMessage: 'upstream timed out after 800 ms' } : {}),
      attributes: { 'order.id': '1042', 'http.status_code': options.fail ? 504 : 200 },
    },
    {
      ...common,
      spanId: 'answer',
      parentSpanId: 'root',
      name: 'chat',
      kind: 'llm',
      model,
      inputTokens: 1400,
      outputTokens: 60,
      startTime: at + 1850,
      endTime: at + 2550,
    },
  ];
}

/** A trace of `count` spans: an agent calling tools and an LLM in turn, nested three deep. */
export function bigTrace(traceId: string, at: number, count: number) {
  const spans: Array<Record<string, unknown>> = [
    { traceId, spanId: 's0', name: 'long research task', kind: 'agent', agentName: 'research-bot', startTime: at, endTime: at + count * 10 },
  ];
  for (let i = 1; i < count; i++) {
    const parent = i % 10 === 1 ? 's0' : `s${i - (i % 10) + 1}`;
    const kind = i % 10 === 1 ? 'chain' : i % 3 === 0 ? 'llm' : 'tool';
    spans.push({
      traceId,
      spanId: `s${i}`,
      parentSpanId: parent,
      name: `${kind} step ${i}`,
      kind,
      agentName: 'research-bot',
      startTime: at + i * 10,
      endTime: at + i * 10 + (kind === 'chain' ? 95 : 8),
      ...(kind === 'tool' ? { toolName: `search.${i % 4}` } : {}),
    });
  }
  return spans;
}

async function ok<T = any>(promise: Promise<{ status: number; body: any }>, what: string): Promise<T> {
  const res = await promise;
  if (res.status >= 300) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as T;
}

const SESSION_ID = 'chat-7781';
/** The user of `chat-7781`, and of no other session. */
export const SESSION_USER = 'customer-311';

/** What the customer of `chat-7781` asked and was answered, turn by turn (the third turn fails). */
export const SESSION_TURNS = [
  { ask: 'Where is my order #1042?', answer: 'It ships tomorrow.' },
  { ask: 'Can it go to my office instead?', answer: 'Done: order #1042 now goes to 5 Market Street.' },
  { ask: 'When will it arrive there?', answer: 'Sorry, I could not look it up.' },
  { ask: 'Please try once more.', answer: 'It arrives on Thursday before noon.' },
];

/** The session and user of the seed's i-th run (the newest first): the turns of `chat-7781`, then five sessions of up to three, then none. */
const sessionOf = (i: number) =>
  i < 4
    ? { sessionId: SESSION_ID, userId: SESSION_USER, ...SESSION_TURNS[3 - i] }
    : i < 16
      ? { sessionId: `chat-${7700 + Math.floor(i / 3)}`, userId: `customer-${200 + (Math.floor(i / 3) % 2)}` }
      : {};

export interface RegisteredTenant {
  email: string;
  tenantId: string;
  /** The access token registration answered (1 hour). */
  token: string;
  /** The refresh token registration set: a browser context with it is signed in. */
  refreshToken: string;
  apiKey: string;
}

/** A new account (a trial, unless the service's SIGN_UP_PLAN says otherwise) with an API key, through the public API. */
export async function registerTenant(service: TestService, email: string): Promise<RegisteredTenant> {
  const registered = await service.api('POST', '/auth/register', {
    body: { email, password: SEED_PASSWORD, firstName: 'Ada', lastName: 'Lovelace', company: 'Analytical Engines' },
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const refreshToken = /aos_refresh=([^;]+)/.exec(registered.headers.getSetCookie().join('\n'))![1]!;
  const token = registered.body.data.accessToken as string;
  const apiKey = (await ok(service.api('POST', '/keys', { token, body: { name: 'production agents' } }), 'POST /keys')).data.key as string;
  return { email, tenantId: String(decodeJwt(token)['tid']), token, refreshToken, apiKey };
}

/**
 * A tenant with something on every page: two agents' traces over the last hour (some failing, six
 * sessions with their users), evaluation signals and logs, the alert the failures raised, a running experiment and a
 * trace of 2,000 spans. Everything goes through the public API.
 */
export async function seedTenant(service: TestService, email: string, options: { bigTraceSpans?: number } = {}): Promise<SeededTenant> {
  const { token, refreshToken, apiKey } = await registerTenant(service, email);
  await ok(service.api('POST', '/keys', { token, body: { name: 'staging' } }), 'POST /keys');

  const experiment = (
    await ok(
      service.api('POST', '/experiments', {
        apiKey,
        body: {
          name: 'Shorter system prompt',
          description: 'Does a terse prompt keep quality and cut cost?',
          variants: [
            { key: 'control', weight: 50 },
            { key: 'terse', weight: 50 },
          ],
          primaryMetric: 'successRate',
        },
      }),
      'POST /experiments',
    )
  ).data;
  await ok(service.api('POST', `/experiments/${experiment.id}/start`, { apiKey }), 'start experiment');

  const now = Date.now();
  const spans: unknown[] = [];
  for (let i = 0; i < 24; i++) {
    const at = now - (i + 1) * 2.5 * MINUTE;
    spans.push(
      // The support bot answers the turns of chat-7781 and two of every three other runs.
      ...run(`trace-${String(i).padStart(2, '0')}`, i >= 4 && i % 3 === 0 ? 'billing-bot' : 'support-bot', at, {
        fail: i % 5 === 1,
        ...sessionOf(i),
        experimentId: experiment.id,
        variant: i % 2 ? 'terse' : 'control',
        model: i % 4 === 0 ? 'claude-3-5-haiku' : 'gpt-4o-mini',
      }),
    );
  }
  await ok(service.api('POST', '/spans', { apiKey, body: { spans } }), 'POST /spans');
  const bigTraceId = 'trace-2000-spans';
  const big = bigTrace(bigTraceId, now - 90 * MINUTE, options.bigTraceSpans ?? 2000);
  for (let i = 0; i < big.length; i += 1000) await ok(service.api('POST', '/spans', { apiKey, body: { spans: big.slice(i, i + 1000) } }), 'POST /spans (big)');
  const traceId = 'trace-01';
  await ok(
    service.api('POST', '/signals/batch', {
      apiKey,
      body: {
        signals: [
          { signalName: 'helpfulness', value: 0.35, traceId, metadata: { reasoning: 'The answer apologises but gives the customer nothing to act on.' } },
          { signalName: 'user_feedback', value: 0, traceId },
        ],
      },
    }),
    'POST /signals/batch',
  );
  await ok(
    service.api('POST', '/logs', {
      apiKey,
      body: {
        logs: [
          { timestamp: new Date(now - 5 * MINUTE).toISOString(), level: 'error', message: 'orders service timed out', traceId, agentName: 'support-bot' },
          { timestamp: new Date(now - 5 * MINUTE + 10).toISOString(), level: 'info', message: 'retrying once', traceId, agentName: 'support-bot' },
        ],
      },
    }),
    'POST /logs',
  );
  await service.drainQueues(30_000);

  const agents = (await ok(service.api('GET', '/agents', { apiKey }), 'GET /agents')).data as Array<{ id: string; name: string }>;
  const agentId = agents.find((a) => a.name === 'support-bot')!.id;
  const alerts = (await ok(service.api('GET', '/spans/alerts', { apiKey }), 'GET /spans/alerts')).data as Array<{ id: string }>;
  return {
    email,
    tenantId: String(decodeJwt(token)['tid']),
    apiKey,
    refreshToken,
    traceId,
    bigTraceId,
    sessionId: SESSION_ID,
    agentId,
    alertId: alerts[0]!.id,
    experimentId: experiment.id,
  };
}

/** Signs a browser context in as the seeded tenant, with the refresh cookie its registration set. */
export async function signInContext(context: BrowserContext, origin: string, tenant: Pick<SeededTenant, 'refreshToken'>) {
  await context.addCookies([{ name: 'aos_refresh', value: tenant.refreshToken, url: `${origin}/api/auth`, httpOnly: true, secure: true, sameSite: 'Strict' }]);
}

/** Every page of the console, as a link opens it, with the heading it shows. */
export const consolePages = (t: SeededTenant) => [
  { name: 'overview', path: '/', heading: 'Overview' },
  { name: 'traces', path: `/traces?agentId=${encodeURIComponent(t.agentId)}`, heading: 'Traces' },
  { name: 'traces-filtered', path: '/traces?errorType=Timeout&minDurationMs=2000&range=24h', heading: 'Traces' },
  { name: 'trace', path: `/traces/${t.traceId}?span=lookup`, heading: 'answer ticket' },
  { name: 'trace-2000-spans', path: `/traces/${t.bigTraceId}`, heading: 'long research task' },
  { name: 'sessions', path: '/sessions', heading: 'Sessions' },
  { name: 'session', path: `/sessions/${t.sessionId}`, heading: `Session ${t.sessionId}` },
  { name: 'agents', path: '/agents', heading: 'Agents' },
  { name: 'agent', path: `/agents/${t.agentId}`, heading: 'support-bot' },
  { name: 'alerts', path: '/alerts', heading: 'Alerts' },
  { name: 'alert', path: `/alerts/${t.alertId}`, heading: undefined },
  { name: 'experiments', path: '/experiments', heading: 'Experiments' },
  { name: 'experiment', path: `/experiments/${t.experimentId}`, heading: 'Shorter system prompt' },
  { name: 'settings', path: '/settings', heading: 'Settings' },
  // On the trial (the tests' seeded tenant), whose plan has no search, the page says so as a notice, not an error;
  // `npm run screenshots` seeds it on Pro (SIGN_UP_PLAN), where the page shows its hits.
  { name: 'search', path: '/search?q=order&range=24h', heading: 'Search' },
  { name: 'exports', path: '/exports', heading: 'Exports' },
];
