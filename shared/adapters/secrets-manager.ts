import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
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
 * deadline: the one call the routes make to Secrets Manager, once per cold start, for the signing seed.
 */
export async function getSecretString(secretArn: string, client?: SecretsManagerClient): Promise<string> {
  const region = SECRET_ARN.exec(secretArn)?.[1];
  if (!region) throw new SecretValueError(`not a Secrets Manager secret ARN: ${secretArn}`);
  const { SecretString } = await (client ?? clientIn(region)).send(new GetSecretValueCommand({ SecretId: secretArn }), deadline(ROUTE_CALL_DEADLINE_MS));
  if (typeof SecretString !== 'string' || SecretString === '') throw new SecretValueError(`the secret ${secretArn} has no string value`);
  return SecretString;
}
