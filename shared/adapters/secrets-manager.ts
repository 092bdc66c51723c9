import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mayPassLater } from '../aws-errors.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { traced } from '../observability/tracer.ts';
import { clientSettings, deadline, ROUTE_CALL_DEADLINE_MS } from './aws-clients.ts';

const SECRET_ARN = /^arn:[a-z0-9-]+:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

/** A secret that holds no usable string: a fault of the deployment, never passing on a retry. */
export class SecretValueError extends Error {}

const clients = new Map<string, SecretsManagerClient>();
/** One client per region, made on first use: the secret is read in its own region. */
const clientIn = (region: string) =>
  clients.get(region) ??
  clients.set(region, traced(new SecretsManagerClient({ region, ...clientSettings({ attempts: 3, attemptTimeoutMs: 3000 }) }))).get(region)!;

/**
 * The secret's string value (SecretString), asked in the secret's own region within the routes' call
 * deadline: the routes read the signing seed and the console's origin secret this way, each at most
 * once per cold start (`secretLoader`).
 */
export async function getSecretString(secretArn: string, client?: SecretsManagerClient): Promise<string> {
  const region = SECRET_ARN.exec(secretArn)?.[1];
  if (!region) throw new SecretValueError(`not a Secrets Manager secret ARN: ${secretArn}`);
  const { SecretString } = await (client ?? clientIn(region)).send(new GetSecretValueCommand({ SecretId: secretArn }), deadline(ROUTE_CALL_DEADLINE_MS));
  if (typeof SecretString !== 'string' || SecretString === '') throw new SecretValueError(`the secret ${secretArn} has no string value`);
  return SecretString;
}

/** How long a secret read from Secrets Manager is kept (`maxAgeMs`), and how long after a failed read none is tried (`retryAfterMs`). */
export interface SecretCaching {
  maxAgeMs: number;
  retryAfterMs: number;
}

/**
 * A secret given directly (locally, in tests), or read from Secrets Manager on first use and kept for
 * `maxAgeMs` (by default for the process); undefined when neither is configured. A read that may pass
 * later (throttling, an outage) answers 503; a refusal stays a fault (500). After a failed read, the
 * calls for `retryAfterMs` (by default none) fail the same way without asking again.
 */
export function secretLoader(
  source: { value?: string | undefined; secretArn?: string | undefined },
  readSecret: (secretArn: string) => Promise<string> = getSecretString,
  { maxAgeMs = Number.POSITIVE_INFINITY, retryAfterMs = 0 }: Partial<SecretCaching> = {},
): () => Promise<string | undefined> {
  let loaded: { value: Promise<string | undefined>; at: number } | undefined;
  let failed: { error: unknown; at: number } | undefined;
  const read = async (): Promise<string | undefined> => {
    if (source.value !== undefined) return source.value;
    if (source.secretArn === undefined) return undefined;
    try {
      return await readSecret(source.secretArn);
    } catch (err) {
      if (mayPassLater(err)) throw new ServiceUnavailableError(5, { cause: err });
      throw err;
    }
  };
  return () => {
    const now = Date.now();
    if (failed && now - failed.at < retryAfterMs) return Promise.reject(failed.error);
    if (loaded === undefined || now - loaded.at >= maxAgeMs) {
      const attempt = { value: read(), at: now };
      loaded = attempt;
      attempt.value.then(
        () => (failed = undefined),
        (error: unknown) => {
          if (loaded === attempt) loaded = undefined;
          failed = { error, at: Date.now() };
        },
      );
    }
    return loaded.value;
  };
}
