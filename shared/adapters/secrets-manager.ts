import { partition } from '@aws-sdk/core/client';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * Secrets Manager's GetSecretValue: the one call the routes make to it, once per cold start, for the
 * signing seed. It is the SDK's SigV4 signer over `fetch` (both already in every bundle) rather than a
 * Secrets Manager client, whose error classes, schemas and endpoint rules took 13.5 KB of every route.
 * Wire format (AWS JSON 1.1): https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html
 */
export interface SecretReadOptions {
  /** Defaults to the regional endpoint of the secret's region (from its ARN), in that region's partition. */
  endpoint?: URL;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  attempts: number;
  /** Per attempt. */
  timeoutMs: number;
  /** Before retry n (1-based) waits up to baseDelayMs · 2^(n-1), at random (full jitter). */
  baseDelayMs: number;
  fetch: typeof fetch;
}

const DEFAULTS: SecretReadOptions = {
  credentials: fromEnv(),
  attempts: 3,
  timeoutMs: 3000,
  baseDelayMs: 100,
  fetch: (...args) => fetch(...args),
};

const SECRET_ARN = /^arn:[a-z0-9-]+:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

/** Secrets Manager's answer to a refused request (`__type` names the exception); `retryable` when another attempt may succeed. */
export class SecretReadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SecretReadError';
  }
}

const THROTTLING = /^(ThrottlingException|TooManyRequestsException|RequestLimitExceeded|Throttling)$/;

/**
 * The secret's string value (SecretString). A failure that outlasts the attempts (throttling, 5xx,
 * timeouts, the network) is a retryable SecretReadError; a refusal that cannot change is not.
 */
export async function getSecretString(secretArn: string, options: Partial<SecretReadOptions> = {}): Promise<string> {
  const settings = { ...DEFAULTS, ...options };
  const region = SECRET_ARN.exec(secretArn)?.[1];
  if (!region) throw new SecretReadError(`not a Secrets Manager secret ARN: ${secretArn}`, false);
  const endpoint = settings.endpoint ?? new URL(`https://secretsmanager.${region}.${partition(region).dnsSuffix}/`);
  const signer = new SignatureV4({ service: 'secretsmanager', region, credentials: await credentialsOf(settings.credentials), sha256: Sha256, applyChecksum: false });

  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptRead(secretArn, endpoint, signer, settings);
    } catch (err) {
      const retryable = !(err instanceof SecretReadError) || err.retryable;
      if (!retryable) throw err;
      if (attempt >= settings.attempts) {
        throw err instanceof SecretReadError ? err : new SecretReadError(`Secrets Manager could not be reached (${attempt} attempts)`, true, { cause: err });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * settings.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}

/** Credentials that cannot be had (none in the environment) will not appear on a retry: not retryable. */
async function credentialsOf(source: SecretReadOptions['credentials']): Promise<AwsCredentialIdentity> {
  try {
    return typeof source === 'function' ? await source() : source;
  } catch (err) {
    throw new SecretReadError('no AWS credentials to sign GetSecretValue with', false, { cause: err });
  }
}

async function attemptRead(secretArn: string, endpoint: URL, signer: SignatureV4, settings: SecretReadOptions): Promise<string> {
  const body = JSON.stringify({ SecretId: secretArn });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port ? Number(endpoint.port) : undefined,
      path: endpoint.pathname,
      query: {},
      headers: {
        host: endpoint.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
      },
      body,
    },
  );
  const { host: _computedByFetch, ...headers } = signed.headers;
  const response = await settings.fetch(endpoint, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(settings.timeoutMs) });
  const text = await response.text();
  const answer = parseAnswer(text);
  if (response.ok) {
    if (typeof answer?.SecretString !== 'string' || answer.SecretString === '') {
      throw new SecretReadError(`the secret ${secretArn} has no string value`, false);
    }
    return answer.SecretString;
  }
  // "__type" may carry a namespace ("com.amazonaws.secretsmanager#ResourceNotFoundException").
  const type = String(answer?.__type ?? response.headers.get('x-amzn-errortype') ?? 'UnknownError').replace(/^.*#/, '').replace(/:.*$/, '');
  const message = typeof answer?.message === 'string' ? answer.message : typeof answer?.Message === 'string' ? answer.Message : '';
  throw new SecretReadError(
    `Secrets Manager refused GetSecretValue (${response.status} ${type})${message ? `: ${message}` : ''}`,
    response.status >= 500 || response.status === 429 || THROTTLING.test(type),
  );
}

function parseAnswer(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
