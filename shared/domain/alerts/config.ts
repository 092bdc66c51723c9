import * as z from 'zod';

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

const typeOptions = z
  .object({
    enabled: z.boolean(),
    severity: z.enum(SEVERITIES),
    channels: z.array(z.enum(CHANNELS)).max(2).refine((c) => new Set(c).size === c.length, 'must not repeat a channel'),
    cooldownMinutes: z.number().int().min(0).max(10_080),
  })
  .partial()
  .strict();
const llmTypeOptions = typeOptions.extend({ threshold: z.number().min(0).max(1).optional() }).strict();
const nonNegative = z.number().finite().nonnegative();

/** The body of `PUT /agents/:agentId/alerts`: any part of the configuration; it merges onto the current one. */
export const alertConfigPatch = z
  .object({
    llmAnalysis: z
      .object({
        enabled: z.boolean(),
        samplingRate: z.number().min(0).max(1),
        alertTypes: z.object(Object.fromEntries(LLM_ALERT_TYPES.map((t) => [t, llmTypeOptions])) as Record<LlmAlertType, typeof llmTypeOptions>).partial().strict(),
      })
      .partial()
      .strict(),
    thresholds: z
      .object({ duration: nonNegative, inputTokens: nonNegative, outputTokens: nonNegative, cost: nonNegative, timeout: nonNegative })
      .partial()
      .strict(),
    alertTypes: z.object(Object.fromEntries(THRESHOLD_ALERT_TYPES.map((t) => [t, typeOptions])) as Record<ThresholdAlertType, typeof typeOptions>).partial().strict(),
    contacts: z
      .object({
        email: z.array(z.object({ address: z.string().trim().email(), enabled: z.boolean().default(true) }).strict()).max(20),
        sms: z
          .array(
            z
              .object({ phoneNumber: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +14155550100'), enabled: z.boolean().default(true) })
              .strict(),
          )
          .max(10),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();
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
