import type { LakeTraceInput } from '#shared/domain/lake/records.ts';
import { estimateCost } from '#shared/domain/pricing/estimate.ts';
import { type StoredSpan, summarizeTrace } from '#shared/domain/spans/summary.ts';
import type { Random } from '../../support/random.ts';

/**
 * Agent runs with realistic text: customers' questions, LLM answers of a few hundred words, tool calls
 * with JSON arguments and results naming orders, amounts, tracking codes and statuses, and the errors
 * agents meet. About 1.5–2.5 KB of text and 150–250 distinct words per trace, like the support, travel,
 * billing and research agents users run. Deterministic for a seed.
 */
export interface CorpusAgent {
  id: string;
  name: string;
  tools: readonly string[];
  models: readonly string[];
}

export const CORPUS_AGENTS: ReadonlyArray<Omit<CorpusAgent, 'id'>> = [
  { name: 'support-bot', tools: ['orders.lookup', 'payments.refund', 'kb.search', 'email.send'], models: ['gpt-4o-mini', 'claude-sonnet-4-5'] },
  { name: 'billing-agent', tools: ['payments.charge', 'payments.refund', 'invoices.get', 'email.send'], models: ['gpt-4o', 'gpt-4o-mini'] },
  { name: 'trip-planner', tools: ['flights.search', 'hotels.book', 'weather.get', 'web.search'], models: ['gpt-4.1', 'gemini-2.5-flash'] },
  { name: 'research-assistant', tools: ['web.search', 'kb.search', 'pdf.extract'], models: ['amazon.nova-pro-v1:0', 'claude-sonnet-4-5'] },
  { name: 'code-reviewer', tools: ['github.get_diff', 'github.comment', 'jira.create_issue'], models: ['claude-sonnet-4-5', 'gpt-5-mini'] },
];

const PRODUCTS = [
  'wireless headphones',
  'espresso machine',
  'running shoes',
  'standing desk',
  'phone case',
  'air purifier',
  'yoga mat',
  'laptop stand',
  'smart watch',
  'backpack',
  'water bottle',
  'desk lamp',
  'gaming mouse',
  'blender',
  'winter jacket',
  'sunglasses',
  'electric kettle',
  'bluetooth speaker',
  'office chair',
  'camera lens',
];
const NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Edsger',
  'Barbara',
  'Ken',
  'Dennis',
  'Radia',
  'Tim',
  'Frances',
  'Donald',
  'Hedy',
  'John',
  'Katherine',
  'Mary',
  'Niklaus',
  'Sophie',
  'Yukihiro',
  'Guido',
  'Bjarne',
  'Anders',
  'Joan',
  'Leslie',
];
const CITIES = [
  'Lisbon',
  'Berlin',
  'Tokyo',
  'Nairobi',
  'Montreal',
  'Seville',
  'Oslo',
  'Lima',
  'Hanoi',
  'Melbourne',
  'Chicago',
  'Kraków',
  'Zürich',
  'Reykjavík',
  'São Paulo',
  'Marrakesh',
];
const STATUSES = ['in_transit', 'delivered', 'reimbursed', 'pending_review', 'declined', 'shipped', 'on_hold', 'cancelled'];
const TIERS = ['free', 'silver', 'gold', 'platinum'];
const REGIONS = ['eu-west', 'us-east', 'ap-south', 'sa-east'];
/** What agents write, per agent, with slots filled from the run's facts. */
const SENTENCES: Record<string, readonly string[]> = {
  'support-bot': [
    'I am sorry to hear that your {product} has not arrived yet.',
    'According to our records the package left the warehouse on {date} and the carrier last updated it in {city}.',
    'Your order {orderId} is currently marked as {status}.',
    'I have opened a claim with the carrier and you will receive an update by email within two business days.',
    'Since the item was damaged on arrival you are eligible for a full refund or a free replacement.',
    'The refund of ${amount} was issued to your original payment method and should appear within five business days.',
    'Please keep the original box until the courier collects the {product}.',
    'Our policy allows returns within thirty days of delivery when the item is unused.',
    'The tracking code {tracking} will start showing scans once the carrier picks up the parcel.',
    'Is there anything else I can help you with today, {name}?',
    'I checked the warehouse inventory and we have another {product} ready to ship.',
    'Customers in {city} sometimes see delays of one or two days because of customs checks.',
  ],
  'billing-agent': [
    'I can see two charges of ${amount} on {date} for invoice {invoice}.',
    'The second charge was a duplicate authorization and it has been reversed.',
    'Your bank may take three to five business days to release the held funds.',
    'The invoice includes the subscription fee, the usage overage and the taxes for your region.',
    'I have applied a credit of ${amount} to your account for the inconvenience.',
    'Your next billing date is the first of {month} and the plan renews automatically.',
    'The payment method ending in 4242 was declined, so I retried it with the backup card.',
    'You can download every past invoice from the billing page of the dashboard.',
    'Prorated charges appear when you upgrade in the middle of a billing period.',
    'A receipt for the refund has been sent to the email address on file.',
  ],
  'trip-planner': [
    'Here is a {days}-day plan for {city} in {month} that stays within ${amount}.',
    'On the first day visit the old town and take the river walk before dinner.',
    'The forecast shows light rain in the afternoon, so museums and covered markets are good options.',
    'I booked a hotel near the central station with free cancellation until two days before arrival.',
    'Breakfast is included in the rate and the rooms have a view of the harbour.',
    'The cheapest flight leaves at 7:40 and arrives shortly after noon local time.',
    'A day pass for public transport costs about eight dollars and covers trains and buses.',
    'For the last evening I suggest a table at a small restaurant known for local seafood.',
    '{name} might enjoy the botanical garden, which is free on weekday mornings.',
    'Remember to check the visa requirements for {city} before you travel.',
  ],
  'research-assistant': [
    'Recent studies estimate that the {product} market in {city} grew by about twelve percent last year.',
    'Three of the five sources agree on the growth rate but they differ on the projected margins.',
    'The most cited report is a survey of two thousand households published in {month}.',
    'Analysts attribute the growth to online sales and lower shipping costs.',
    'One paper warns that the sample may overrepresent urban buyers.',
    'Here are the key findings with links to the documents that support each of them.',
    'The extracted table lists revenue by quarter and by region.',
    'I could not find peer-reviewed data for the smaller cities, only industry estimates.',
    'The methodology section explains how returns and refunds were counted.',
    'Overall the evidence is moderate and should be read with the caveats above.',
  ],
  'code-reviewer': [
    'The change to the refund retry logic looks reasonable overall.',
    'The error handling path misses a retry when the payment provider times out.',
    'The new test covers only the happy path; please add a case for a declined card.',
    'This function now mixes parsing and persistence, which makes it harder to test.',
    'Consider extracting the backoff settings into the configuration module.',
    'The migration renames a column that the reporting job still reads.',
    'I left inline comments on the three places where the null check is missing.',
    'The pull request #{pr} also updates the lock file; please keep that in a separate commit.',
    'Performance looks fine: the benchmark shows no regression on the hot path.',
    'I opened a ticket for the flaky integration test so it can be fixed separately.',
  ],
};
const ERRORS = [
  { type: 'TimeoutError', message: (tool: string) => `Timeout after 30000 ms calling ${tool}` },
  { type: 'RateLimitError', message: () => '429 Too Many Requests: rate limit exceeded, retry after 20 s' },
  { type: 'ValidationError', message: () => 'amount must be a positive number of cents' },
  { type: 'UpstreamError', message: (tool: string) => `upstream connect error or disconnect/reset before headers while calling ${tool}` },
  { type: 'PaymentDeclined', message: () => 'payment declined by the issuing bank (insufficient funds)' },
];
const ERROR_RATE = 0.05;

const code = (random: Random, length: number) => Array.from({ length }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[random.below(32)]).join('');
/** A few of the agent's sentences, slots filled from the run's facts. */
const prose = (random: Random, agent: string, facts: Facts, count: number) =>
  random
    .shuffle(SENTENCES[agent] ?? SENTENCES['support-bot']!)
    .slice(0, count)
    .map((line) => line.replace(/\{(\w+)\}/g, (_, slot: keyof Facts) => String(facts[slot])))
    .join(' ');

function question(random: Random, agent: string, facts: Facts): string {
  switch (agent) {
    case 'support-bot':
      return random.pick([
        `Hi, I ordered the ${facts.product} on ${facts.date} (order ${facts.orderId}) and it still has not arrived. Can I get a refund?`,
        `My ${facts.product} arrived broken. Order ${facts.orderId}. What are my options?`,
        `Where is my order ${facts.orderId}? The tracking code ${facts.tracking} shows nothing since ${facts.date}.`,
      ]);
    case 'billing-agent':
      return `I was charged $${facts.amount} twice for invoice ${facts.invoice} on ${facts.date}. Please fix this.`;
    case 'trip-planner':
      return `Plan a ${facts.days}-day trip to ${facts.city} for ${facts.name} in ${facts.month}, budget $${facts.amount}, with a hotel near the center.`;
    case 'research-assistant':
      return `Summarise what recent studies say about ${facts.product} market growth in ${facts.city} and cite sources.`;
    default:
      return `Review pull request #${facts.pr} in repo payments-service: it changes the refund retry logic.`;
  }
}

interface Facts {
  product: string;
  orderId: string;
  tracking: string;
  invoice: string;
  date: string;
  amount: string;
  city: string;
  name: string;
  month: string;
  days: number;
  pr: number;
  status: string;
}

const hex = (random: Random, bytes: number) => Array.from({ length: bytes }, () => random.below(256).toString(16).padStart(2, '0')).join('');

/** One finished run of an agent: root, LLM calls and tool calls, as the ingest worker stores them. */
export function corpusTrace(random: Random, agent: CorpusAgent, startTimeMs: number, sessionCount: number): LakeTraceInput {
  const traceId = hex(random, 16);
  const facts: Facts = {
    product: random.pick(PRODUCTS),
    orderId: `A-${random.int(100_000, 999_999)}`,
    tracking: `TRK${code(random, 9)}`,
    invoice: `INV-${random.int(10_000, 99_999)}`,
    date: new Date(startTimeMs - random.int(1, 20) * 86_400_000).toISOString().slice(0, 10),
    amount: (random.int(500, 90_000) / 100).toFixed(2),
    city: random.pick(CITIES),
    name: random.pick(NAMES),
    month: random.pick(['March', 'June', 'September', 'December']),
    days: random.int(2, 9),
    pr: random.int(100, 9999),
    status: random.pick(STATUSES),
  };
  const failed = random.chance(ERROR_RATE);
  const sessionId = `sess-${random.below(sessionCount)}`;
  const userId = `user-${random.below(sessionCount * 4)}`;
  const attributes = {
    'customer.tier': random.pick(TIERS),
    'deployment.region': random.pick(REGIONS),
    'app.version': `2.${random.int(0, 9)}.${random.int(0, 20)}`,
  };
  const spans: StoredSpan[] = [];
  let clock = startTimeMs + random.int(1, 20);
  const span = (fields: Partial<StoredSpan> & Pick<StoredSpan, 'spanId' | 'name' | 'kind'>): StoredSpan => {
    const durationMs = fields.durationMs ?? random.int(50, 4000);
    const start = clock;
    clock += durationMs + random.int(1, 30);
    return {
      traceId,
      parentSpanId: 'root',
      agentName: agent.name,
      agentNameFromService: false,
      agentId: agent.id,
      startTimeMs: start,
      endTimeMs: start + durationMs,
      durationMs,
      status: 'ok',
      statusMessage: null,
      errorType: null,
      model: null,
      provider: null,
      operation: null,
      inputTokens: null,
      outputTokens: null,
      cachedInputTokens: null,
      reasoningTokens: null,
      cost: null,
      costEstimated: false,
      tags: [],
      metadata: {},
      input: null,
      output: null,
      toolName: null,
      sessionId,
      userId,
      experimentId: null,
      variant: null,
      attributes: {},
      events: [],
      ...fields,
    };
  };
  const userQuestion = question(random, agent.name, facts);
  const calls = random.int(1, 3);
  const failingCall = failed ? random.below(calls) : -1;
  for (let i = 0; i < calls; i++) {
    const model = random.pick(agent.models);
    const inputTokens = random.int(300, 6000);
    const outputTokens = random.int(40, 900);
    const estimate = estimateCost(model, { inputTokens, outputTokens, cachedInputTokens: null });
    spans.push(
      span({
        spanId: `llm-${i}`,
        name: 'chat',
        kind: 'llm',
        model,
        provider: model.startsWith('gpt') ? 'openai' : model.startsWith('claude') ? 'anthropic' : model.startsWith('gemini') ? 'google' : 'amazon',
        operation: 'chat',
        inputTokens,
        outputTokens,
        cost: estimate,
        costEstimated: estimate !== null,
        input: i === 0 ? userQuestion : `Tool result received. Continue helping ${facts.name} with ${facts.product}.`,
        output: `${prose(random, agent.name, facts, random.int(2, 4))} Next I will call ${agent.tools[i % agent.tools.length]} for ${facts.orderId}.`,
        attributes: { 'gen_ai.request.temperature': 0.2, ...attributes },
      }),
    );
    const tool = random.pick(agent.tools);
    const failing = i === failingCall;
    const error = failing ? random.pick(ERRORS) : undefined;
    spans.push(
      span({
        spanId: `tool-${i}`,
        name: `call ${tool}`,
        kind: 'tool',
        toolName: tool,
        input: JSON.stringify({ orderId: facts.orderId, invoice: facts.invoice, city: facts.city, amountCents: Math.round(Number(facts.amount) * 100) }),
        output: failing
          ? null
          : JSON.stringify({
              status: facts.status,
              tracking: facts.tracking,
              amount: facts.amount,
              currency: 'USD',
              note: `${facts.status.replace('_', ' ')} for ${facts.product} on ${facts.date}`,
            }),
        status: failing ? 'error' : 'ok',
        errorType: error?.type ?? null,
        statusMessage: error?.message(tool) ?? null,
        durationMs: failing && error?.type === 'TimeoutError' ? 30_000 : random.int(20, 2500),
        attributes: { 'tool.version': `v${random.int(1, 4)}` },
      }),
    );
  }
  const endTimeMs = clock + random.int(10, 400);
  spans.unshift({
    ...span({ spanId: 'root', name: `${agent.name} run`, kind: 'agent', durationMs: 0 }),
    parentSpanId: null,
    startTimeMs,
    endTimeMs,
    durationMs: endTimeMs - startTimeMs,
    status: failed ? 'error' : 'ok',
    statusMessage: failed ? 'the run failed after a tool error' : null,
    input: userQuestion,
    output: failed
      ? null
      : `${prose(random, agent.name, facts, random.int(4, 7))} Your ${facts.product} (order ${facts.orderId}) is ${facts.status.replace('_', ' ')}.`,
    attributes,
  });
  return { summary: summarizeTrace(spans), spans, revision: endTimeMs };
}

/** Words the bench searches for, by how many traces have them: from every trace down to none. */
export const SEARCH_WORDS = {
  everywhere: ['order', 'the'],
  common: ['refund', 'reimbursed', 'hotel', 'invoice', 'declined'],
  uncommon: ['zürich', 'espresso', 'harbour', 'migration'],
  absent: ['xylophone', 'quokka', 'zeppelin'],
};
export const SEARCH_PHRASES = ['"payment declined"', '"full refund"', '"light rain"', '"rate limit exceeded"', '"duplicate authorization"', '"purple quokka"'];
