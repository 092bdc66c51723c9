import { partition } from '@aws-sdk/core/client';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { loadJsonRpcErrorCode, loadRestJsonErrorCode } from '@smithy/core/protocols';
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * One JSON request to an AWS API, signed with the SDK's own SigV4 signer and sent over `fetch`. The
 * service's answer is read as the SDK reads it (its own error-code loaders), and retried by the SDK's
 * own classification. It serves the single operation each function needs of a service other than
 * DynamoDB (Secrets Manager, SQS, Bedrock Runtime, SES, Timestream): an SDK client brings its schemas,
 * error classes and endpoint rules, 13–77 KB of a bundle for one operation.
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
  /** Where its error code is read first: AWS JSON (`__type`) or REST JSON (`x-amzn-errortype`). */
  readonly protocol: 'json-rpc' | 'rest-json';
  /** An AWS JSON API that still answers query-protocol error codes (SQS): its body's `code` comes first, as in the SDK. */
  readonly queryCompatible?: boolean;
  /** The variable whose API key, when set, is sent as `Authorization: Bearer` instead of a signature (`AWS_BEARER_TOKEN_BEDROCK`). */
  readonly bearerTokenEnv?: string;
}

export interface AwsOperation {
  /** In messages: "GetSecretValue". */
  readonly name: string;
  /** The path, already percent-encoded as the protocol requires; it follows the endpoint's own path. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AwsCallOptions {
  /** Defaults to `AWS_REGION`, then `AWS_DEFAULT_REGION` (Lambda sets both). */
  region?: string;
  /** Where to call; otherwise `AWS_ENDPOINT_URL_<ID>`, then `AWS_ENDPOINT_URL`, then the regional endpoint in the region's partition. */
  endpoint?: URL;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  attempts: number;
  /** Per attempt. */
  timeoutMs: number;
  /** Ends the call, attempts and waits included, when it aborts. */
  signal?: AbortSignal;
  /** Before retry n (1-based) waits up to baseDelayMs · 2^(n-1), at random (full jitter); five times that after throttling, as the SDK does. */
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
const THROTTLING_DELAY_FACTOR = 5;

/**
 * How long a call made while a route answers may take, retries included: a route times out after 10 s
 * (infra/aws/routes-stack.ts), and one whose call failed must still have time to answer 503.
 */
export const ROUTE_CALL_DEADLINE_MS = 6000;

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
  readonly throttling: boolean;

  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    // Shaped as the SDK's exceptions are, the SDK's own classification applies.
    const shape = { name: code, message, $metadata: { httpStatusCode: status } };
    const throttling = isThrottlingError(shape);
    super(message, throttling || isTransientError(shape));
    this.throttling = throttling;
    this.name = 'AwsServiceError';
  }
}

/** Sends the operation and answers its JSON body ({} when empty), retrying what may succeed on another attempt. */
export async function callAws(api: AwsApi, operation: AwsOperation, options: Partial<AwsCallOptions> = {}): Promise<unknown> {
  const { region, ...rest } = options;
  const defaulted = { ...DEFAULTS, ...rest };
  const settings: Settings = { ...defaulted, region: region ?? defaulted.env.AWS_REGION ?? defaulted.env.AWS_DEFAULT_REGION ?? '' };
  if (!/^[a-z0-9-]+$/.test(settings.region)) throw new AwsCallError(`no AWS region to call ${api.name} in`, false);
  const url = urlOf(api, operation, settings);
  const bearerToken = api.bearerTokenEnv ? settings.env[api.bearerTokenEnv] : undefined;
  const authorize = bearerToken ? bearer(bearerToken) : await signer(api, operation, settings);
  const headers = { ...operation.headers, ...traceHeader(settings.env) };
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptCall(api, { ...operation, headers }, url, authorize, settings);
    } catch (err) {
      if (!(err instanceof AwsCallError && err.retryable) || attempt >= settings.attempts || settings.signal?.aborted) throw err;
      const base = settings.baseDelayMs * (err instanceof AwsServiceError && err.throttling ? THROTTLING_DELAY_FACTOR : 1);
      await sleep(Math.random() * base * 2 ** (attempt - 1), undefined, { signal: settings.signal }).catch(() => {
        throw err;
      });
    }
  }
}

/** The operation's URL: its path after the endpoint's own path. */
function urlOf(api: AwsApi, operation: AwsOperation, { endpoint, env, region }: Settings): URL {
  const configured = env[`AWS_ENDPOINT_URL_${api.endpointEnvId}`] || env.AWS_ENDPOINT_URL || undefined;
  const url = new URL(endpoint ?? configured ?? `https://${api.endpointPrefix}.${region}.${partition(region).dnsSuffix}`);
  url.pathname = url.pathname.replace(/\/$/, '') + operation.path;
  return url;
}

/**
 * In a Lambda function, the invocation's X-Ray trace header, as the SDK clients send it: X-Ray links
 * the call to the function's trace, and Lambda sees a loop through a queue. SigV4 never signs it.
 */
function traceHeader(env: Settings['env']): Record<string, string> {
  const traceId = env._X_AMZN_TRACE_ID;
  return env.AWS_LAMBDA_FUNCTION_NAME && traceId ? { 'x-amzn-trace-id': traceId } : {};
}

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

async function attemptCall(api: AwsApi, operation: AwsOperation, url: URL, authorize: Authorize, settings: Settings): Promise<unknown> {
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
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await settings.fetch(url, { method: 'POST', headers, body: operation.body, redirect: 'error', signal: settings.signal ? AbortSignal.any([settings.signal, timeout]) : timeout });
    text = await response.text();
  } catch (err) {
    // Network failures and timeouts: another attempt may reach the service.
    throw new AwsCallError(`${api.name} could not be reached (${(err as Error).name}) for ${operation.name}`, true, { cause: err });
  }
  const answer = parseObject(text);
  if (response.ok) {
    if (text !== '' && !answer) throw new AwsCallError(`${api.name} answered ${operation.name} with a body that is not a JSON object`, false);
    return answer ?? {};
  }
  const output = { statusCode: response.status, headers: Object.fromEntries(response.headers) };
  const code = String((api.protocol === 'rest-json' ? loadRestJsonErrorCode(output, answer) : loadJsonRpcErrorCode(output, answer, api.queryCompatible)) ?? 'UnknownError');
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
