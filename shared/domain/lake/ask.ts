import { ValidationError } from '../errors.ts';
import { requireFeature } from '../plans/entitlements.ts';
import type { Store } from '../store.ts';
import { formatSearchQuery, parseSearchQuery, QuerySyntaxError } from './query.ts';
import { findTraces, planOf, type SearchPage, type SearchPorts } from './search.ts';
import { keywordOf } from './text.ts';

/**
 * `POST /search/ask`: a question in plain words turned into the search language, run, and shown back
 * with its results, so the user sees how it was understood. The translator is a Bedrock model on AWS
 * (ask-bedrock.ts) and, locally, the deterministic parser below, which knows the phrasings listed in
 * docs/search.md and says which words it did not use, or that it understood nothing.
 */
export interface AskContext {
  now: Date;
  /** The tenant's agents, models and tools, so names in the question can be recognised. */
  agents: ReadonlyArray<{ id: string; name: string }>;
  models: readonly string[];
  tools: readonly string[];
}

export type Translation = { understood: true; q: string; startDate?: Date; endDate?: Date; ignored: string[] } | { understood: false; reason: string };

export interface QueryTranslator {
  readonly name: 'builtin' | 'bedrock';
  translate(question: string, context: AskContext): Promise<Translation>;
}

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS };
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
};
const STOP_WORDS = new Set(
  (
    'a an the and or but of for in on at by to from with without that which who whom whose where when what how why is are was were be been being ' +
    'do does did done have has had i me my we our us you your it its they them their this these those there here all any some each every ' +
    'show find list get give see look looking want need please can could would should will just only also then than as so if not no ' +
    'trace traces run runs request requests call calls span spans session sessions agent agents conversation conversations interaction interactions ' +
    'one ones happened happen occurred took'
  ).split(' '),
);

const MORE = '(?:more|greater|higher|longer|bigger)\\s+than|over|above|exceeding|at\\s+least';
const LESS = '(?:less|lower|fewer|shorter|smaller)\\s+than|under|below|at\\s+most';
const comparisonOf = (words: string): string => {
  if (/at\s+least/.test(words)) return '>=';
  if (/at\s+most/.test(words)) return '<=';
  return new RegExp(`^(?:${MORE})$`).test(words.trim()) ? '>' : '<';
};
const numberOf = (text: string): number => NUMBER_WORDS[text] ?? Number(text);
const startOfDay = (ms: number) => ms - (ms % DAY_MS);

/** Cuts a word to the stem a prefix search should use: `refunds` → `refund`, `deliveries` → `deliver`. */
export function stemOf(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return word.slice(0, -3);
  if (word.length > 4 && /(?:ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const written = (value: string) => (/^[^\s"*]+$/.test(value) ? value : `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);

/**
 * The built-in translator: fixed phrasings (docs/search.md), the tenant's own agent, model and tool
 * names, nothing learned. Deterministic: the same question and context give the same query.
 */
export const builtinTranslator: QueryTranslator = {
  name: 'builtin',
  async translate(question, context) {
    let rest = ` ${question
      .toLowerCase()
      .replace(/[?!,;()]+/g, ' ')
      .replace(/\s+/g, ' ')} `;
    const terms: string[] = [];
    let startMs: number | undefined;
    let endMs: number | undefined;
    const nowMs = context.now.getTime();
    /** Applies a pattern everywhere in what is left, consuming what it matched. */
    const take = (pattern: RegExp, use: (match: RegExpExecArray) => void) => {
      rest = rest.replace(new RegExp(pattern.source, 'g'), (...args) => {
        const groups = args.slice(0, -2) as string[];
        use(Object.assign([...groups], { index: 0, input: '' }) as unknown as RegExpExecArray);
        return ' ';
      });
    };

    // Quoted phrases, exactly.
    rest = rest.replace(/"([^"]+)"/g, (_, phrase: string) => {
      terms.push(written(phrase.trim()));
      return ' ';
    });
    // The tenant's own names, longest first, as whole words.
    const names = (values: readonly string[], field: string) => {
      for (const value of [...values].sort((a, b) => b.length - a.length)) {
        const folded = value.toLowerCase();
        if (folded.length < 2) continue;
        take(new RegExp(`(?<![\\w-])${escapeRegExp(folded)}(?![\\w-])(?:\\s+(?:agent|bot|model|tool))?`), () => terms.push(`${field}:${written(value)}`));
      }
    };
    names(
      context.agents.map((a) => a.name),
      'agent',
    );
    names(context.models, 'model');
    names(context.tools, 'tool');
    take(/(?:called|calling|call|used|using|use|invoked|invoking)\s+(?:the\s+)?([\w.:-]+)\s+(?:tool|function)/, (m) =>
      terms.push(`tool:${written(keywordOf(m[1]!))}*`),
    );
    take(/\bthe\s+([\w.:-]+)\s+(?:tool|function)\b/, (m) => terms.push(`tool:${written(keywordOf(m[1]!))}*`));

    // When.
    take(
      /\b(?:in\s+the\s+|over\s+the\s+|during\s+the\s+|for\s+the\s+)?(?:last|past|previous)\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty)\s+(minute|hour|day|week|month)s?\b/,
      (m) => {
        startMs = nowMs - numberOf(m[1]!) * UNIT_MS[m[2]!]!;
        endMs = nowMs;
      },
    );
    take(/\b(?:in\s+the\s+|over\s+the\s+|during\s+the\s+)?past\s+(minute|hour|day|week|month)\b/, (m) => {
      startMs = nowMs - UNIT_MS[m[1]!]!;
      endMs = nowMs;
    });
    take(/\b(?:in\s+the\s+|over\s+the\s+|during\s+the\s+)?last\s+(minute|hour|day)\b/, (m) => {
      startMs = nowMs - UNIT_MS[m[1]!]!;
      endMs = nowMs;
    });
    take(/\blast\s+week\b/, () => {
      const thisMonday = startOfDay(nowMs) - ((context.now.getUTCDay() + 6) % 7) * DAY_MS;
      startMs = thisMonday - 7 * DAY_MS;
      endMs = thisMonday - 1;
    });
    take(/\bthis\s+week\b/, () => {
      startMs = startOfDay(nowMs) - ((context.now.getUTCDay() + 6) % 7) * DAY_MS;
      endMs = nowMs;
    });
    take(/\blast\s+month\b/, () => {
      startMs = Date.UTC(context.now.getUTCFullYear(), context.now.getUTCMonth() - 1, 1);
      endMs = Date.UTC(context.now.getUTCFullYear(), context.now.getUTCMonth(), 1) - 1;
    });
    take(/\bthis\s+month\b/, () => {
      startMs = Date.UTC(context.now.getUTCFullYear(), context.now.getUTCMonth(), 1);
      endMs = nowMs;
    });
    take(/\byesterday\b/, () => {
      startMs = startOfDay(nowMs) - DAY_MS;
      endMs = startOfDay(nowMs) - 1;
    });
    take(/\btoday\b/, () => {
      startMs = startOfDay(nowMs);
      endMs = nowMs;
    });
    take(/\b(?:since|after)\s+(\d{4}-\d{2}-\d{2})\b/, (m) => {
      startMs = Date.parse(m[1]!);
      endMs = nowMs;
    });
    take(/\bon\s+(\d{4}-\d{2}-\d{2})\b/, (m) => {
      startMs = Date.parse(m[1]!);
      endMs = startMs + DAY_MS - 1;
    });

    // How much, how long, how many tokens.
    const money = '(\\$\\s?\\d+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?\\s*(?:dollars?|usd|bucks)|a\\s+dollar|one\\s+dollar|a\\s+cent|\\d+\\s*cents?|\\d+(?:\\.\\d+)?)';
    const dollars = (text: string) => {
      if (/^(?:a|one)\s+dollar$/.test(text)) return 1;
      if (/^a\s+cent$/.test(text)) return 0.01;
      if (/cents?$/.test(text)) return Number(text.replace(/\D/g, '')) / 100;
      return Number(text.replace(/[^\d.]/g, ''));
    };
    take(new RegExp(`\\b(?:that\\s+)?(?:cost(?:s|ing)?|spent|spending|priced(?:\\s+at)?)\\s+(${MORE}|${LESS})\\s+${money}`), (m) =>
      terms.push(`cost${comparisonOf(m[1]!)}${dollars(m[2]!)}`),
    );
    take(new RegExp(`\\b(more|less)\\s+expensive\\s+than\\s+${money}`), (m) => terms.push(`cost${m[1] === 'more' ? '>' : '<'}${dollars(m[2]!)}`));
    take(new RegExp(`\\bcheaper\\s+than\\s+${money}`), (m) => terms.push(`cost<${dollars(m[1]!)}`));
    take(/\b(over|above|under|below)\s+(\$\s?\d+(?:\.\d+)?)/, (m) => terms.push(`cost${/over|above/.test(m[1]!) ? '>' : '<'}${dollars(m[2]!)}`));
    const unit = '(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\\b';
    const durationUnit = (u: string) => (u.startsWith('ms') || u.startsWith('milli') ? 'ms' : u.startsWith('h') ? 'h' : u.startsWith('m') ? 'm' : 's');
    take(
      new RegExp(
        `\\b(?:took|take|taking|lasted|lasting|ran|running|run\\s+for|duration(?:\\s+of)?|latency(?:\\s+of)?)\\s+(${MORE}|${LESS})\\s+(\\d+(?:\\.\\d+)?)\\s*${unit}`,
      ),
      (m) => terms.push(`duration${comparisonOf(m[1]!)}${m[2]}${durationUnit(m[3]!)}`),
    );
    take(new RegExp(`\\b(slower|faster)\\s+than\\s+(\\d+(?:\\.\\d+)?)\\s*${unit}`), (m) =>
      terms.push(`duration${m[1] === 'slower' ? '>' : '<'}${m[2]}${durationUnit(m[3]!)}`),
    );
    take(new RegExp(`\\b(?:using\\s+|used\\s+)?(${MORE}|${LESS})\\s+(\\d+(?:\\.\\d+)?)\\s*(k|m|thousand|million)?\\s+tokens\\b`), (m) => {
      const scale = m[3] === 'k' || m[3] === 'thousand' ? 'k' : m[3] === 'm' || m[3] === 'million' ? 'm' : '';
      terms.push(`tokens${comparisonOf(m[1]!)}${m[2]}${scale}`);
    });

    // Identifiers.
    take(/\bsession\s+(?:id\s+)?([\w.:-]*\d[\w.:-]*)/, (m) => terms.push(`session:${written(m[1]!)}`));
    take(/\buser\s+(?:id\s+)?([\w.:@-]*\d[\w.:@-]*)/, (m) => terms.push(`user:${written(m[1]!)}`));

    // What went wrong, and whether it did.
    take(/\b([a-z][\w.-]*)\s+(?:errors?|exceptions?)\b/, (m) => {
      if (!STOP_WORDS.has(m[1]!) && !/^(?:fail\w*|error\w*|any|with)$/.test(m[1]!)) terms.push(`error:${written(m[1]!)}`);
      else terms.push('status:error');
    });
    take(/\b(?:failed|failing|errored|erroring)\s+(?:with|because\s+of|due\s+to)\s+(?:an?\s+)?([a-z][\w.-]*)\b/, (m) => terms.push(`error:${written(m[1]!)}`));
    take(/\b(?:failed|failing|failures?|errored|erroring|errors?|unsuccessful|broken|crashed|crashing)\b/, () => terms.push('status:error'));
    take(/\b(?:successful|succeeded|successes|success|passed|healthy)\b/, () => terms.push('status:ok'));

    // Words to look for.
    const connector =
      '(?=\\s+(?:and|but|or|that|which|who|with|where|when|in|on|from|since|during|over|under|after|before|by|using|yesterday|today|last|this|past)\\b|\\s*$)';
    take(
      new RegExp(`\\b(?:about|regarding|mentioning|mentions?|containing|contains?|saying|says?|related\\s+to|with\\s+the\\s+words?)\\s+(.+?)${connector}`),
      (m) => {
        for (const word of m[1]!.split(/\s+/)) {
          const folded = keywordOf(word).replace(/[^\p{L}\p{N}]+/gu, '');
          if (folded.length >= 2 && !STOP_WORDS.has(folded)) terms.push(`${stemOf(folded)}*`);
        }
      },
    );

    const ignored = rest
      .split(/\s+/)
      .map((w) => w.replace(/[^\p{L}\p{N}$.-]+/gu, ''))
      .filter((w) => w.length > 0 && !STOP_WORDS.has(w) && !/^(?:asked|asking|talking|complained|called|used|using|where|users?|customers?|the)$/.test(w));
    const distinctTerms = [...new Set(terms)];
    if (distinctTerms.length === 0 && startMs === undefined) {
      return { understood: false, reason: 'no agent, tool, model, status, error, cost, duration, token count, time range or "about …" words were recognised' };
    }
    return {
      understood: true,
      q: distinctTerms.join(' '),
      ...(startMs !== undefined && { startDate: new Date(startMs) }),
      ...(endMs !== undefined && { endDate: new Date(endMs) }),
      ignored: [...new Set(ignored)],
    };
  },
};

export interface AskPorts extends SearchPorts {
  store: Pick<Store, 'tenants' | 'agents' | 'traces'>;
  translator: QueryTranslator;
}

export const ASK_EXAMPLES = [
  'failed support-bot runs yesterday that cost more than a dollar',
  'traces where the user asked about refunds and the agent called the payments tool',
  'timeout errors in the last 24 hours',
  'runs slower than 5 seconds using gpt-4o this week',
];

export interface AskAnswer extends SearchPage {
  question: string;
  query: { q: string; startDate: string | null; endDate: string | null };
  translatedBy: QueryTranslator['name'];
  /** Words of the question that shaped nothing in the query. */
  ignored: string[];
}

/** Translates the question (the plan's `smartSearch`), validates the query it gives, and runs it. */
export async function ask(tenantId: string, input: { question: string; limit: number }, ports: AskPorts): Promise<AskAnswer> {
  const plan = await planOf(ports.store, tenantId);
  requireFeature(plan, 'smartSearch');
  const [agents, facets] = await Promise.all([ports.store.agents.list(tenantId), ports.store.traces.facets(tenantId)]);
  const translation = await ports.translator.translate(input.question, {
    now: ports.clock.now(),
    agents: agents.map((a) => ({ id: a.id, name: a.name })),
    models: facets.models,
    tools: facets.toolNames,
  });
  if (!translation.understood) {
    throw new ValidationError(`question: not understood (${translation.reason}); ask for example "${ASK_EXAMPLES[0]}", or search with GET /search/traces?q=`);
  }
  let query: ReturnType<typeof parseSearchQuery>;
  try {
    query = parseSearchQuery(translation.q);
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw new ValidationError(`question: could not be turned into a valid query (${err.message})`);
    throw err;
  }
  const page = await findTraces(
    tenantId,
    plan,
    query,
    { ...(translation.startDate && { startDate: translation.startDate }), ...(translation.endDate && { endDate: translation.endDate }), limit: input.limit },
    ports,
  );
  return {
    question: input.question,
    query: { q: formatSearchQuery(query), startDate: translation.startDate?.toISOString() ?? null, endDate: translation.endDate?.toISOString() ?? null },
    translatedBy: ports.translator.name,
    ignored: translation.ignored,
    ...page,
  };
}
