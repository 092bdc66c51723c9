import { AwsCallError, callAws, ROUTE_CALL_DEADLINE_MS, type AwsApi, type AwsCallOptions } from './aws-call.ts';

/**
 * Secrets Manager's GetSecretValue: the one call the routes make to it, once per cold start, for the
 * signing seed. Wire format (AWS JSON 1.1): https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html
 */
const SECRETS_MANAGER: AwsApi = { name: 'Secrets Manager', signingName: 'secretsmanager', endpointPrefix: 'secretsmanager', endpointEnvId: 'SECRETS_MANAGER', protocol: 'json-rpc' };

const SECRET_ARN = /^arn:[a-z0-9-]+:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

/**
 * The secret's string value (SecretString), asked in the secret's own region within the routes' call
 * deadline. A failure that outlasts the attempts or the deadline (throttling, transient 5xx, timeouts,
 * the network) is a retryable AwsCallError; a refusal that cannot change is not.
 */
export async function getSecretString(secretArn: string, options: Partial<AwsCallOptions> = {}): Promise<string> {
  const region = SECRET_ARN.exec(secretArn)?.[1];
  if (!region) throw new AwsCallError(`not a Secrets Manager secret ARN: ${secretArn}`, false);
  const answer = await callAws(
    SECRETS_MANAGER,
    {
      name: 'GetSecretValue',
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body: JSON.stringify({ SecretId: secretArn }),
    },
    { signal: AbortSignal.timeout(ROUTE_CALL_DEADLINE_MS), ...options, region },
  );
  const { SecretString } = answer as { SecretString?: unknown };
  if (typeof SecretString !== 'string' || SecretString === '') throw new AwsCallError(`the secret ${secretArn} has no string value`, false);
  return SecretString;
}
