import type { Stack } from 'aws-cdk-lib';
import { isTrustedKeysUrl, keysUrlOf } from '#shared/domain/accounts/jwt.ts';
import { DEFAULT_JUDGE_MODEL } from '#shared/domain/evaluation/judge.ts';
import { PLAN_KEYS, type PlanKey } from '#shared/domain/plans/plans.ts';
import { logLevelOf } from '#shared/observability/logger.ts';

/**
 * Deployment settings, read from CDK context (`cdk deploy -c mailFrom=alerts@example.com`, or the `context`
 * block of cdk.json). Every key is optional:
 *
 * | key                  | default                             | reaches the functions as |
 * |----------------------|-------------------------------------|--------------------------|
 * | `corsAllowOrigins`   | `*`; an array or a comma-separated string | the HTTP API's CORS configuration |
 * | `jwtIssuer`          | `urn:aos:<API stack name>` (`urn:aos:AgentObservability-Stateless`) | `JWT_ISSUER` |
 * | `jwtExternalIssuers` | `[]`; an array or JSON string of `{issuer, jwksUrl?, audiences, hostedSignIn?}`, e.g. a Cognito user pool and its hosted sign-in for the console (checked whole by the console stack) | `JWT_EXTERNAL_ISSUERS` |
 * | `publicAppUrl`       | the API's own endpoint, so e-mailed `/api/...` links work; set it when a dashboard serves `/reset-password` | `PUBLIC_APP_URL` |
 * | `mailFrom`           | the functions' built-in sender; set an SES-verified identity | `MAIL_FROM` |
 * | `logLevel`           | `INFO`; `DEBUG`, `INFO`, `WARN`, `ERROR` or `SILENT`, checked at synth | `LOG_LEVEL` |
 * | `bedrockModelId`     | `amazon.nova-micro-v1:0`; a foundation model or inference profile id | the evaluate worker's `BEDROCK_MODEL_ID` (and its IAM grant) |
 * | `profileNarratorModelId` | unset: profiles' narratives come from a template | the regenerate route's and learning job's `PROFILE_NARRATOR_MODEL_ID` (and their IAM grant) |
 * | `askModelId`         | `amazon.nova-lite-v1:0`; a foundation model or inference profile id | `ASK_MODEL_ID` of the routes that turn questions into searches (and their IAM grant) |
 * | `timestreamDatabase`, `timestreamTable` | unset: no Timestream sink | the ingest worker's `TIMESTREAM_DATABASE`/`TIMESTREAM_TABLE` (and its IAM grant) |
 * | `signUpPlan`         | `trial`; `starter` or `pro` starts every new account on that plan, active (a deployment without billing) | `SIGN_UP_PLAN` |
 * | `originSecretVersionId` | unset: the origin secret's current version | the console distribution's origin secret header, pinned to that version of the secret (to re-key it, docs/limits-and-plans.md) |
 */
const DEFAULT_ASK_MODEL = 'amazon.nova-lite-v1:0';

export interface DeploymentSettings {
  readonly corsAllowOrigins: string[];
  readonly jwtIssuer: string;
  /** JSON, as `JWT_EXTERNAL_ISSUERS` carries it. */
  readonly jwtExternalIssuers: string;
  readonly publicAppUrl: string | undefined;
  readonly mailFrom: string | undefined;
  readonly logLevel: string;
  /** The LLM judge's model on Bedrock. */
  readonly bedrockModelId: string;
  readonly profileNarratorModelId: string | undefined;
  /** The model that turns questions into search queries (`POST /search/ask`). */
  readonly askModelId: string;
  readonly timestream: { database: string; table: string } | undefined;
  /** The version of the origin secret the console distribution sends; its current one when unset. */
  readonly originSecretVersionId: string | undefined;
  /** The plan new accounts start on. */
  readonly signUpPlan: PlanKey;
}

export function deploymentSettings(stack: Stack): DeploymentSettings {
  return {
    corsAllowOrigins: listContext(stack, 'corsAllowOrigins') ?? ['*'],
    jwtIssuer: stringContext(stack, 'jwtIssuer') ?? `urn:aos:${stack.stackName}`,
    jwtExternalIssuers: JSON.stringify(externalIssuersContext(stack, 'jwtExternalIssuers')),
    publicAppUrl: stringContext(stack, 'publicAppUrl'),
    mailFrom: stringContext(stack, 'mailFrom'),
    logLevel: logLevelOf({ LOG_LEVEL: stringContext(stack, 'logLevel') }),
    bedrockModelId: stringContext(stack, 'bedrockModelId') ?? DEFAULT_JUDGE_MODEL,
    profileNarratorModelId: stringContext(stack, 'profileNarratorModelId'),
    askModelId: stringContext(stack, 'askModelId') ?? DEFAULT_ASK_MODEL,
    timestream: timestreamContext(stack),
    originSecretVersionId: stringContext(stack, 'originSecretVersionId'),
    signUpPlan: planContext(stack, 'signUpPlan'),
  };
}

function planContext(stack: Stack, key: string): PlanKey {
  const value = stringContext(stack, key) ?? 'trial';
  if (!(PLAN_KEYS as readonly string[]).includes(value)) throw new Error(`context ${key} must be one of ${PLAN_KEYS.join(', ')}`);
  return value as PlanKey;
}

function timestreamContext(stack: Stack): DeploymentSettings['timestream'] {
  const database = stringContext(stack, 'timestreamDatabase');
  const table = stringContext(stack, 'timestreamTable');
  if ((database === undefined) !== (table === undefined)) throw new Error('context timestreamDatabase and timestreamTable go together');
  return database && table ? { database, table } : undefined;
}

function stringContext(stack: Stack, key: string): string | undefined {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

function listContext(stack: Stack, key: string): string[] | undefined {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined) return undefined;
  const items: unknown = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string')) {
    throw new Error(`context ${key} must be a comma-separated string or an array of strings`);
  }
  const trimmed = items.map((item) => item.trim()).filter((item) => item.length > 0);
  return trimmed.length > 0 ? trimmed : undefined;
}

/** Checked here so that a typo fails `cdk synth` instead of every function's cold start. */
function externalIssuersContext(stack: Stack, key: string): unknown[] {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined || value === '') return [];
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (entry: unknown) =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as { issuer?: unknown }).issuer === 'string' &&
        isAudienceList((entry as { audiences?: unknown }).audiences),
    );
  if (!valid) throw new Error(`context ${key} must be a JSON array of {issuer, jwksUrl?, audiences}, each naming at least one audience`);
  const untrusted = (parsed as { issuer: string; jwksUrl?: string }[]).map(keysUrlOf).filter((url) => !isTrustedKeysUrl(url));
  if (untrusted.length > 0) throw new Error(`context ${key}: keys must be read over https, not ${untrusted.join(', ')}`);
  return parsed;
}

/** At least one app client id: an empty list would accept tokens meant for any app of the issuer. */
const isAudienceList = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && value.every((audience) => typeof audience === 'string' && audience !== '');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
