import * as z from 'zod/mini';
import { storableNumber } from '../../schemas/storable.ts';
import { MAX_TOKEN_COUNT } from '../spans/model.ts';

export const THRESHOLD_ALERT_TYPES = ['error', 'highDuration', 'highInputTokens', 'highOutputTokens', 'highCost', 'timeout'] as const;
export const LLM_ALERT_TYPES = ['hallucination', 'nsfw', 'stuck', 'quality'] as const;
export type ThresholdAlertType = (typeof THRESHOLD_ALERT_TYPES)[number];
export type LlmAlertType = (typeof LLM_ALERT_TYPES)[number];
export type AlertType = ThresholdAlertType | LlmAlertType;

export const SEVERITIES = ['low', 'warning', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const CHANNELS = ['email', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface TypeOptions {
  enabled: boolean;
  severity: Severity;
  channels: Channel[];
  cooldownMinutes: number;
}
export interface LlmTypeOptions extends TypeOptions {
  /** Judge confidence (0–1) at or above which the type alerts. */
  threshold: number;
}

export interface AlertConfig {
  llmAnalysis: {
    enabled: boolean;
    /** Share of the agent's finished traces the judge evaluates (0–1), chosen deterministically by trace id. */
    samplingRate: number;
    alertTypes: Record<LlmAlertType, LlmTypeOptions>;
  };
  thresholds: { duration: number; inputTokens: number; outputTokens: number; cost: number; timeout: number };
  /** Per-type options of the threshold types (our addition; the spec has them for the LLM types). */
  alertTypes: Record<ThresholdAlertType, TypeOptions>;
  contacts: { email: Array<{ address: string; enabled: boolean }>; sms: Array<{ phoneNumber: string; enabled: boolean }> };
}

export const DEFAULT_COOLDOWN_MINUTES = 5;

const options = (severity: Severity, extra: Partial<TypeOptions> = {}): TypeOptions => ({
  enabled: true,
  severity,
  channels: ['email'],
  cooldownMinutes: DEFAULT_COOLDOWN_MINUTES,
  ...extra,
});

/** The spec's defaults: 5000 ms, 100000 / 50000 tokens, 1.00 per call, 30 s timeout, 5 min cooldown. */
export const DEFAULT_ALERT_CONFIG: AlertConfig = {
  llmAnalysis: {
    enabled: false,
    samplingRate: 1,
    alertTypes: {
      hallucination: { ...options('high'), threshold: 0.7 },
      nsfw: { ...options('critical'), threshold: 0.7 },
      stuck: { ...options('warning'), threshold: 0.7 },
      quality: { ...options('low'), threshold: 0.7 },
    },
  },
  thresholds: { duration: 5000, inputTokens: 100_000, outputTokens: 50_000, cost: 1.0, timeout: 30_000 },
  alertTypes: {
    error: options('high'),
    highDuration: options('warning'),
    highInputTokens: options('warning'),
    highOutputTokens: options('warning'),
    highCost: options('high'),
    timeout: options('high'),
  },
  contacts: { email: [], sms: [] },
};

const typeOptions = z.partial(
  z.strictObject({
    enabled: z.boolean(),
    severity: z.enum(SEVERITIES),
    channels: z.array(z.enum(CHANNELS)).check(
      z.maxLength(2),
      z.refine((c: readonly string[]) => new Set(c).size === c.length, 'must not repeat a channel'),
    ),
    cooldownMinutes: z.number().check(z.int(), z.gte(0), z.lte(10_080)),
  }),
);
const llmTypeOptions = z.extend(typeOptions, { threshold: z.optional(storableNumber(0, 1)) });
// A threshold of 0 makes every call or trace cross it (every finished trace a timeout): above zero only.
/** A duration threshold: a run of up to 30 days, in milliseconds. */
const durationMs = storableNumber(0, 30 * 86_400_000, { minIncluded: false });
/** A token count: a whole number (a threshold of 1.5 tokens was stored as such). */
const tokens = storableNumber(0, MAX_TOKEN_COUNT, { minIncluded: false }).check(z.int());
/** Dollars per call. */
const dollars = storableNumber(0, 1_000_000, { minIncluded: false });

type ThresholdsAndTimeout = { thresholds?: { duration?: number; timeout?: number }; alertTypes?: { timeout?: { enabled?: boolean } } };

/**
 * Why the duration threshold is meaningless beside the timeout, if it is: a trace that runs past it and
 * reaches the timeout is a `timeout`, so at or above the (enabled) timeout, `highDuration` never fires.
 * Checked on a patch that sets both (the console sends the whole configuration) and on the merged one.
 */
export function durationPastTimeout(c: ThresholdsAndTimeout): string | undefined {
  const { duration, timeout } = c.thresholds ?? {};
  if (duration === undefined || timeout === undefined || c.alertTypes?.timeout?.enabled === false || duration < timeout) return undefined;
  return `must be below the timeout threshold (${timeout} ms): a trace that reaches the timeout is a timeout alert, so highDuration could never fire`;
}

/** Refuses a contact that repeats an earlier one (by `identity` of its `field`), naming the repeat. */
const eachOnce = <F extends string>(field: F, repeats: (first: number) => string, identity: (value: string) => string = (value) => value) =>
  z.superRefine((contacts: Array<Record<F, string>>, ctx) => {
    contacts.forEach((contact, i) => {
      const first = contacts.findIndex((other) => identity(other[field]) === identity(contact[field]));
      if (first < i) ctx.issues.push({ code: 'custom', message: repeats(first + 1), path: [i, field], input: contact[field] });
    });
  });

/** The e-mail contacts, each address once: compared without case, as mail servers do (DUP@x.com is dup@x.com). */
const emailContacts = z.array(z.strictObject({ address: z.string().check(z.trim(), z.email()), enabled: z._default(z.boolean(), true) })).check(
  z.maxLength(20),
  eachOnce(
    'address',
    (first) => `repeats e-mail address ${first} (addresses are compared without case)`,
    (address) => address.toLowerCase(),
  ),
);

const smsContacts = z
  .array(
    z.strictObject({
      phoneNumber: z.string().check(z.regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +14155550100')),
      enabled: z._default(z.boolean(), true),
    }),
  )
  .check(
    z.maxLength(10),
    eachOnce('phoneNumber', (first) => `repeats phone number ${first}`),
  );

/** The body of `PUT /agents/:agentId/alerts`: any part of the configuration; it merges onto the current one. */
export const alertConfigPatch = z
  .partial(
    z.strictObject({
      llmAnalysis: z.partial(
        z.strictObject({
          enabled: z.boolean(),
          samplingRate: storableNumber(0, 1),
          alertTypes: z.partial(
            z.strictObject(Object.fromEntries(LLM_ALERT_TYPES.map((t) => [t, llmTypeOptions])) as Record<LlmAlertType, typeof llmTypeOptions>),
          ),
        }),
      ),
      thresholds: z.partial(z.strictObject({ duration: durationMs, inputTokens: tokens, outputTokens: tokens, cost: dollars, timeout: durationMs })),
      alertTypes: z.partial(
        z.strictObject(Object.fromEntries(THRESHOLD_ALERT_TYPES.map((t) => [t, typeOptions])) as Record<ThresholdAlertType, typeof typeOptions>),
      ),
      contacts: z.partial(z.strictObject({ email: emailContacts, sms: smsContacts })),
    }),
  )
  .check(
    z.superRefine((patch, ctx) => {
      const problem = durationPastTimeout(patch);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, path: ['thresholds', 'duration'], input: patch.thresholds?.duration });
    }),
  );
export type AlertConfigPatch = z.infer<typeof alertConfigPatch>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge where objects merge key by key and arrays (channels, contacts) are replaced whole. */
export function merge<T>(base: T, patch: unknown): T {
  if (!isObject(base) || !isObject(patch)) return (patch === undefined ? base : patch) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) out[key] = merge((base as Record<string, unknown>)[key], value);
  }
  return out as T;
}

/** The configuration in force: the defaults, then what was stored, then (for an update) the patch. */
export function effectiveAlertConfig(stored: AlertConfigPatch | undefined, patch?: AlertConfigPatch): AlertConfig {
  return merge(merge(DEFAULT_ALERT_CONFIG, stored), patch);
}

export function optionsOf(config: AlertConfig, type: AlertType): TypeOptions | LlmTypeOptions {
  return (LLM_ALERT_TYPES as readonly string[]).includes(type)
    ? config.llmAnalysis.alertTypes[type as LlmAlertType]
    : config.alertTypes[type as ThresholdAlertType];
}
