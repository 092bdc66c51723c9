import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mayPassLater } from '../aws-errors.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { logger } from '../observability/logger.ts';
import { traced } from '../observability/tracer.ts';
import { clientSettings, deadline, ROUTE_CALL_DEADLINE_MS } from './aws-clients.ts';

const SECRET_ARN = /^arn:[a-z0-9-]+:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

/** A secret that holds no usable string: a fault of the deployment, never passing on a retry. */
export class SecretValueError extends Error {
  // Named by hand: the functions' bundles are minified, class names with them.
  override readonly name = 'SecretValueError';
}

const clients = new Map<string, SecretsManagerClient>();
/** One client per region, made on first use: the secret is read in its own region. */
const clientIn = (region: string) =>
  clients.get(region) ??
  clients.set(region, traced(new SecretsManagerClient({ region, ...clientSettings({ attempts: 3, attemptTimeoutMs: 3000 }) }))).get(region)!;

/**
 * The secret's string value (SecretString), asked in the secret's own region within the routes' call
 * deadline: the routes read the signing seed this way once per cold start, and the console's origin
 * secret on first use and every 15 minutes after (`secretLoader`).
 */
export async function getSecretString(
  secretArn: string,
  client?: SecretsManagerClient,
  { versionStage, within = deadline(ROUTE_CALL_DEADLINE_MS) }: { versionStage?: string; within?: { abortSignal: AbortSignal } } = {},
): Promise<string> {
  const region = SECRET_ARN.exec(secretArn)?.[1];
  if (!region) throw new SecretValueError(`not a Secrets Manager secret ARN: ${secretArn}`);
  const { SecretString } = await (client ?? clientIn(region)).send(
    new GetSecretValueCommand({ SecretId: secretArn, ...(versionStage !== undefined && { VersionStage: versionStage }) }),
    within,
  );
  if (typeof SecretString !== 'string' || SecretString === '') throw new SecretValueError(`the secret ${secretArn} has no string value`);
  return SecretString;
}

/**
 * The secret's current value and, when it has one, its previous (the `AWSCURRENT` and `AWSPREVIOUS`
 * stages): what a secret that is re-keyed while its other side still sends the old value accepts. A
 * secret never re-keyed has no previous version; any other failure fails the read. The current value
 * is read first: a new value put between the two reads then gives the old one twice (accepted until
 * the next read, as before the put), never the new and the one before the old, which would refuse
 * what the other side still sends. Both reads share the routes' one call deadline.
 */
export async function getCurrentAndPreviousStrings(secretArn: string): Promise<readonly string[]> {
  const within = deadline(ROUTE_CALL_DEADLINE_MS);
  const current = await getSecretString(secretArn, undefined, { within });
  const previous = await getSecretString(secretArn, undefined, { versionStage: 'AWSPREVIOUS', within }).catch((err: unknown) => {
    if (err instanceof ResourceNotFoundException) return undefined;
    throw err;
  });
  return previous === undefined ? [current] : [current, previous];
}

/**
 * A named loader's failed reads are logged here: an outage as a warning, a refusal (a grant or key
 * taken away, a wrong ARN) as an error, since it stays until the deployment is fixed. Once a value is
 * held it keeps serving, so this log is the only sign of a secret that can no longer be read. Only
 * the errors' names are logged: a message could quote a fragment of the answer, which holds the secret.
 */
function logFailedRead(secret: string, err: unknown, holding: boolean): void {
  const message = holding ? `${secret} not read again: serving the value read before` : `${secret} not read`;
  if (err instanceof ServiceUnavailableError) logger.warn(message, { error: 'unavailable', cause: nameOf(err.cause) });
  else logger.error(message, { error: nameOf(err) });
}

/** SDK errors name themselves (`ThrottlingException`), and so does SecretValueError. */
const nameOf = (err: unknown): string => (err instanceof Error ? err.name : typeof err);

/**
 * How long a secret read from Secrets Manager is used before it is read again (`maxAgeMs`), how long
 * after a failed read none is tried (`retryAfterMs`), and the name its failed reads are logged under
 * (`logAs`; unnamed, they are left to the caller, as the signing seed's are to the routes' 503).
 */
export interface SecretCaching {
  maxAgeMs: number;
  retryAfterMs: number;
  logAs: string;
}

/** A secret's value given directly (locally, in tests), or the ARN of the secret that holds it. */
export interface SecretSource<T> {
  value?: T | undefined;
  secretArn?: string | undefined;
}

/**
 * A secret given directly (locally, in tests), or read from Secrets Manager on first use and read
 * again once it is `maxAgeMs` old (by default never); undefined when neither is configured. Once read,
 * a value keeps serving: while a newer one is read, and when that read fails. Before any value was
 * read, a read that may pass later (throttling, an outage) answers 503 and a refusal stays a fault
 * (500); for `retryAfterMs` after a failed read (by default none) calls fail the same way without
 * asking again. One read at a time.
 */
export function secretLoader(
  source: SecretSource<string>,
  readSecret?: (secretArn: string) => Promise<string>,
  caching?: Partial<SecretCaching>,
): () => Promise<string | undefined>;
/** A loader of another form of the secret (`getCurrentAndPreviousStrings`), given directly in that form. */
export function secretLoader<T>(
  source: SecretSource<T>,
  readSecret: (secretArn: string) => Promise<T>,
  caching?: Partial<SecretCaching>,
): () => Promise<T | undefined>;
export function secretLoader<T>(
  source: SecretSource<T>,
  readSecret: (secretArn: string) => Promise<T> = getSecretString as unknown as (secretArn: string) => Promise<T>,
  { maxAgeMs = Number.POSITIVE_INFINITY, retryAfterMs = 0, logAs }: Partial<SecretCaching> = {},
): () => Promise<T | undefined> {
  let good: { value: T | undefined; at: number } | undefined;
  let failed: { error: unknown; at: number } | undefined;
  let reading: Promise<T | undefined> | undefined;
  const read = async (): Promise<T | undefined> => {
    if (source.value !== undefined) return source.value;
    if (source.secretArn === undefined) return undefined;
    try {
      return await readSecret(source.secretArn);
    } catch (err) {
      if (mayPassLater(err)) throw new ServiceUnavailableError(5, { cause: err });
      throw err;
    }
  };
  const readAgain = (): Promise<T | undefined> => {
    reading ??= read().then(
      (value) => {
        good = { value, at: Date.now() };
        failed = undefined;
        reading = undefined;
        return value;
      },
      (error: unknown) => {
        if (logAs !== undefined) logFailedRead(logAs, error, good !== undefined);
        failed = { error, at: Date.now() };
        reading = undefined;
        throw error;
      },
    );
    return reading;
  };
  return async () => {
    const now = Date.now();
    const waiting = failed !== undefined && now - failed.at < retryAfterMs;
    if (good === undefined) {
      if (waiting) throw failed!.error;
      return readAgain();
    }
    // The value held serves meanwhile; a failure is logged in readAgain (with logAs).
    if (now - good.at >= maxAgeMs && !waiting) readAgain().catch(() => {});
    return good.value;
  };
}
