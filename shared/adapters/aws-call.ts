import { partition } from '@aws-sdk/core/client';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * One JSON request to an AWS API, signed with the SDK's own SigV4 signer and sent over `fetch`. The
 * service's answer is read as the SDK reads it (the error code from `x-amzn-errortype` or `__type`),
 * and classified as retryable by the SDK's own rules. It serves the single operation each function
 * needs of a service other than DynamoDB (Secrets Manager, SQS, Bedrock Runtime, SES): an SDK client
 * brings its schemas, error classes and endpoint rules, 13–77 KB of a bundle for one operation.
 */
export interface AwsApi {
  /** In messages: "Secrets Manager". */
  readonly name: string;
  /** The SigV4 signing name ("secretsmanager"). */
  readonly signingName: string;
  /** The first label of the regional endpoint ("secretsmanager" in secretsmanager.eu-west-1.amazonaws.com). */
  readonly endpointPrefix: string;
  /** The service's part of the SDK's endpoint variable, `AWS_ENDPOINT_URL_<ID>` ("SECRETS_MANAGER"). */
  readonly endpointEnvId: string;
}

export interface AwsOperation {
  /** In messages: "GetSecretValue". */
  readonly name: string;
  /** Path and query, already percent-encoded as the protocol requires. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AwsCallOptions {
  /** Defaults to `AWS_REGION`, then `AWS_DEFAULT_REGION` (Lambda sets both). */
  region?: string;
  /** Defaults to `AWS_ENDPOINT_URL_<ID>`, then `AWS_ENDPOINT_URL`, then `serviceEndpoint`. */
  endpoint?: URL;
  /** Where the service is when neither `endpoint` nor the SDK's variables say: by default its regional endpoint in the region's partition. */
  serviceEndpoint?: URL;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Sent as `Authorization: Bearer` instead of a SigV4 signature (Bedrock API keys). */
  bearerToken?: string;
  attempts: number;
  /** Per attempt. */
  timeoutMs: number;
  /** Before retry n (1-based) waits up to baseDelayMs · 2^(n-1), at random (full jitter). */
  baseDelayMs: number;
  fetch: typeof fetch;
  env: Readonly<Record<string, string | undefined>>;
}

type Settings = Omit<AwsCallOptions, 'region'> & { region: string };

const DEFAULTS: Omit<AwsCallOptions, 'region'> = {
  credentials: fromEnv(),
  attempts: 3,
  timeoutMs: 3000,
  baseDelayMs: 100,
  fetch: (...args) => fetch(...args),
  env: process.env,
};

/** A call that failed; `retryable` when another attempt may succeed. */
export class AwsCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AwsCallError';
  }
}

/** The service's refusal: its error code (the exception's name, without namespace) and HTTP status. */
export class AwsServiceError extends AwsCallError {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    // Shaped as the SDK's exceptions are, the SDK's own classification applies.
    const shape = { name: code, message, $metadata: { httpStatusCode: status } };
    super(message, isThrottlingError(shape) || isTransientError(shape) || isServerError(shape));
    this.name = 'AwsServiceError';
  }
}

/** Sends the operation and answers its JSON body ({} when empty), retrying what may succeed on another attempt. */
export async function callAws(api: AwsApi, operation: AwsOperation, options: Partial<AwsCallOptions> = {}): Promise<unknown> {
  const { region, ...rest } = options;
  const defaulted = { ...DEFAULTS, ...rest };
  const settings: Settings = { ...defaulted, region: region ?? defaulted.env.AWS_REGION ?? defaulted.env.AWS_DEFAULT_REGION ?? '' };
  if (!/^[a-z0-9-]+$/.test(settings.region)) throw new AwsCallError(`no AWS region to call ${api.name} in`, false);
  const endpoint = endpointOf(api, settings);
  const authorize = settings.bearerToken ? bearer(settings.bearerToken) : await signer(api, operation, settings);
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptCall(api, operation, endpoint, authorize, settings);
    } catch (err) {
      if (err instanceof AwsCallError && !err.retryable) throw err;
      if (attempt >= settings.attempts) {
        throw err instanceof AwsCallError ? err : new AwsCallError(`${api.name} could not be reached (${attempt} attempts)`, true, { cause: err });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * settings.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}

/** The endpoint the options or the SDK's variables (`AWS_ENDPOINT_URL_<ID>`, `AWS_ENDPOINT_URL`) name, if any. */
export function configuredEndpoint(api: AwsApi, { endpoint, env = DEFAULTS.env }: Partial<AwsCallOptions>): URL | undefined {
  const configured = endpoint ?? (env[`AWS_ENDPOINT_URL_${api.endpointEnvId}`] || env.AWS_ENDPOINT_URL);
  return configured ? new URL(configured) : undefined;
}

const endpointOf = (api: AwsApi, settings: Settings): URL =>
  configuredEndpoint(api, settings) ?? settings.serviceEndpoint ?? new URL(`https://${api.endpointPrefix}.${settings.region}.${partition(settings.region).dnsSuffix}/`);

type Authorize = (request: HttpRequest) => Promise<HttpRequest>;
interface HttpRequest {
  method: 'POST';
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

const bearer =
  (token: string): Authorize =>
  async (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });

/** Credentials that cannot be had (none in the environment) will not appear on a retry: not retryable. */
async function signer(api: AwsApi, operation: AwsOperation, settings: Settings): Promise<Authorize> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = typeof settings.credentials === 'function' ? await settings.credentials() : settings.credentials;
  } catch (err) {
    throw new AwsCallError(`no AWS credentials to sign ${operation.name} with`, false, { cause: err });
  }
  const sigV4 = new SignatureV4({ service: api.signingName, region: settings.region, credentials, sha256: Sha256, applyChecksum: false });
  return async (request) => (await sigV4.sign(request)) as HttpRequest;
}

async function attemptCall(api: AwsApi, operation: AwsOperation, endpoint: URL, authorize: Authorize, settings: Settings): Promise<unknown> {
  const url = new URL(operation.path.replace(/^\//, ''), endpoint);
  const request = await authorize({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { host: url.host, ...operation.headers },
    body: operation.body,
  });
  const { host: _computedByFetch, ...headers } = request.headers;
  const response = await settings.fetch(url, { method: 'POST', headers, body: operation.body, redirect: 'error', signal: AbortSignal.timeout(settings.timeoutMs) });
  const text = await response.text();
  const answer = parseObject(text);
  if (response.ok) {
    if (text !== '' && !answer) throw new AwsCallError(`${api.name} answered ${operation.name} with a body that is not a JSON object`, false);
    return answer ?? {};
  }
  // The code may carry a namespace ("com.amazonaws.secretsmanager#ResourceNotFoundException") or a suffix after ':'.
  const code = String(response.headers.get('x-amzn-errortype') ?? answer?.__type ?? answer?.code ?? 'UnknownError').replace(/^.*#/, '').replace(/:.*$/, '');
  const detail = typeof answer?.message === 'string' ? answer.message : typeof answer?.Message === 'string' ? answer.Message : '';
  throw new AwsServiceError(`${api.name} refused ${operation.name} (${response.status} ${code})${detail ? `: ${detail}` : ''}`, code, response.status);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
