import * as z from 'zod/mini';
import { ConfigError } from './config-error.ts';
import { isTrustedKeysUrl } from './domain/accounts/jwt.ts';
import { DEFAULT_JUDGE_MODEL } from './domain/evaluation/judge.ts';
import { PLAN_KEYS } from './domain/plans/plans.ts';
import { DEFAULT_LEARNING_SETTINGS, learningSettings } from './domain/profiles/settings.ts';
import { externalIssuers } from './external-issuers.ts';
import './schemas/messages.ts';

const positiveInt = z.coerce.number().check(z.int(), z.positive());
const nonEmpty = z.string().check(z.minLength(1));
const url = z.string().check(z.url());

export type { ExternalIssuer } from './external-issuers.ts';

const rateLimits = z.object({
  standard: z._default(positiveInt, 100),
  strict: z._default(positiveInt, 20),
  ingestion: z._default(positiveInt, 500),
  auth: z._default(positiveInt, 20),
});
export type RateLimits = z.infer<typeof rateLimits>;

const jsonOf = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.pipe(
      z.optional(z.string()),
      z.transform((raw: string | undefined, ctx) => {
        if (raw === undefined || raw.trim() === '') return undefined;
        try {
          return JSON.parse(raw) as unknown;
        } catch {
          ctx.issues.push({ code: 'custom', message: 'is not valid JSON', input: raw });
          return z.NEVER;
        }
      }),
    ),
    schema,
  );

const envSchema = z.object({
  TABLE_NAME: nonEmpty,
  /**
   * Local: the seed itself. AWS: the Secrets Manager secret that holds it. Only functions that sign or
   * verify credentials get either; the others never load the key (see adapters/signing.ts).
   */
  SIGNING_SEED: z.optional(z.string().check(z.minLength(32))),
  SIGNING_SEED_SECRET_ARN: z.optional(nonEmpty),
  /**
   * The secret the console's CloudFront distribution sends with every request it passes to the API,
   * so that the viewer address it reports is believed (http/client-address.ts). AWS: the Secrets
   * Manager secret that holds it; tests: the value itself. Without either (locally, where no
   * distribution sits in front), the address the request came from is the client's.
   */
  ORIGIN_SECRET: z.optional(z.string().check(z.minLength(32))),
  ORIGIN_SECRET_ARN: z.optional(nonEmpty),
  JWT_ISSUER: z._default(nonEmpty, 'urn:aos:local'),
  JWT_AUDIENCE: z._default(nonEmpty, 'aos-api'),
  JWT_TTL_SECONDS: z._default(positiveInt, 3600),
  /** Identity providers whose access tokens are accepted, and their hosted sign-ins for the console (external-issuers.ts). */
  JWT_EXTERNAL_ISSUERS: jsonOf(z._default(externalIssuers, [])),
  RATE_LIMITS: jsonOf(z._default(rateLimits, rateLimits.parse({}))),
  /** Where links in e-mails point (reset and verification pages). */
  PUBLIC_APP_URL: z._default(url, 'http://127.0.0.1:3000'),
  MAIL_TRANSPORT: z._default(z.enum(['ses', 'outbox']), 'ses'),
  MAIL_FROM: z._default(z.string().check(z.minLength(3)), 'alerts@agent-observability.local'),
  SMS_TRANSPORT: z._default(z.enum(['sns', 'outbox']), 'sns'),
  OUTBOX_DIR: z.optional(nonEmpty),
  CORS_ALLOW_ORIGINS: z._default(z.string(), '*'),
  /** Optional per-trace metrics sink (off unless both are set). */
  TIMESTREAM_DATABASE: z.optional(nonEmpty),
  TIMESTREAM_TABLE: z.optional(nonEmpty),
  /** Alert notifications (e-mail + SMS messages) a tenant may be sent per hour, so a storm cannot run up SES/SNS cost. */
  NOTIFICATIONS_PER_HOUR: z._default(positiveInt, 60),
  /** An active alert whose condition has not recurred for this long is resolved by the scheduled job. */
  ALERT_QUIET_HOURS: z._default(positiveInt, 24),
  /** Who judges finished traces for LLM-analysed alerts: the built-in heuristics (the default) or Amazon Bedrock. */
  JUDGE: z._default(z.enum(['builtin', 'bedrock']), 'builtin'),
  /** The Bedrock judge's model: a foundation model id, or an inference profile id such as `us.amazon.nova-micro-v1:0`. */
  BEDROCK_MODEL_ID: z._default(nonEmpty, DEFAULT_JUDGE_MODEL),
  /** Traces a tenant may have judged per UTC day, so the judge's cost stays bounded. */
  EVALUATION_DAILY_BUDGET: z._default(positiveInt, 1000),
  /** The most of a trace the judge reads, in estimated tokens; the oldest steps between input and final output go first. */
  JUDGE_MAX_INPUT_TOKENS: z._default(positiveInt, 6000),
  /** Profile learning constants as JSON, e.g. `{"minTraces":100,"refreshDays":3}` (docs/profiles.md). */
  PROFILE_LEARNING: jsonOf(z._default(learningSettings, DEFAULT_LEARNING_SETTINGS)),
  /** A Bedrock model that writes the profiles' narrative; unset, a deterministic template writes it. */
  PROFILE_NARRATOR_MODEL_ID: z.optional(nonEmpty),
  /**
   * How long after an agent's data is purged the final sweep runs: longer than an ingest worker can run
   * (its queue's visibility timeout, 180 s), within SQS's 900 s limit.
   */
  /** The plan a new account starts on: `trial` (its trial days), or a paid plan, active at once (a deployment without billing). */
  SIGN_UP_PLAN: z._default(z.enum(PLAN_KEYS), 'trial'),
  PURGE_SWEEP_DELAY_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(900)), 300),
});

export type Config = ReturnType<typeof parseConfig>;

export { ConfigError };

export function parseConfig(env: Record<string, string | undefined>) {
  const parsed = z.safeParse(envSchema, env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if ((e.MAIL_TRANSPORT === 'outbox' || e.SMS_TRANSPORT === 'outbox') && !e.OUTBOX_DIR) {
    throw new ConfigError('invalid configuration: the outbox transport needs OUTBOX_DIR');
  }
  if ((e.JWT_EXTERNAL_ISSUERS ?? []).some((i) => i.hostedSignIn && !i.hostedSignIn.redirectUri) && !isTrustedKeysUrl(e.PUBLIC_APP_URL)) {
    throw new ConfigError(
      'invalid configuration: a hosted sign-in without redirectUri answers at PUBLIC_APP_URL/auth/callback, so PUBLIC_APP_URL must be https (plain http only on 127.0.0.1 or localhost)',
    );
  }
  return {
    tableName: e.TABLE_NAME,
    signingSeed: e.SIGNING_SEED,
    signingSeedSecretArn: e.SIGNING_SEED_SECRET_ARN,
    originSecret: e.ORIGIN_SECRET,
    originSecretArn: e.ORIGIN_SECRET_ARN,
    jwt: {
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      ttlSeconds: e.JWT_TTL_SECONDS,
      externalIssuers: e.JWT_EXTERNAL_ISSUERS ?? [],
    },
    rateLimits: e.RATE_LIMITS ?? rateLimits.parse({}),
    publicAppUrl: e.PUBLIC_APP_URL.replace(/\/$/, ''),
    mail: { transport: e.MAIL_TRANSPORT, from: e.MAIL_FROM },
    sms: { transport: e.SMS_TRANSPORT },
    outboxDir: e.OUTBOX_DIR,
    corsAllowOrigins: e.CORS_ALLOW_ORIGINS,
    timestream: e.TIMESTREAM_DATABASE && e.TIMESTREAM_TABLE ? { database: e.TIMESTREAM_DATABASE, table: e.TIMESTREAM_TABLE } : undefined,
    alerts: { notificationsPerHour: e.NOTIFICATIONS_PER_HOUR, quietHours: e.ALERT_QUIET_HOURS },
    evaluation: { judge: e.JUDGE, bedrockModelId: e.BEDROCK_MODEL_ID, dailyBudget: e.EVALUATION_DAILY_BUDGET, maxInputTokens: e.JUDGE_MAX_INPUT_TOKENS },
    profiles: { learning: e.PROFILE_LEARNING ?? DEFAULT_LEARNING_SETTINGS, narratorModelId: e.PROFILE_NARRATOR_MODEL_ID },
    purgeSweepDelaySeconds: e.PURGE_SWEEP_DELAY_SECONDS,
    signUpPlan: e.SIGN_UP_PLAN,
  };
}

/** Read once at module load: a misconfigured function fails at cold start, not on some later request. */
export const config: Config = parseConfig(process.env);
