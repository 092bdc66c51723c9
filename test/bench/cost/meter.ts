import { AsyncLocalStorage } from 'node:async_hooks';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { LlmAlertType } from '#shared/domain/alerts/config.ts';
import { builtinJudge } from '#shared/domain/evaluation/heuristics/index.ts';
import type { Verdict } from '#shared/domain/evaluation/judge.ts';
import { judgePrompt } from '#shared/domain/evaluation/prompts.ts';
import { estimateTokens, type Trajectory } from '#shared/domain/evaluation/trajectory.ts';
import type { LoadModule } from '../../../infra/local/lambda.ts';
import { type DynamoUsage, emptyDynamoUsage, meterDynamoDb } from './dynamodb-meter.ts';
import { PRICES } from './prices.ts';
import { emptyQueueUsage, meterSqs, type QueueUsage } from './sqs-meter.ts';

/** One function's invocations, as Lambda (and, for routes, API Gateway) bills them. */
export interface FunctionUsage {
  invocations: number;
  /** Wall-clock time in the handler, each invocation rounded up to the millisecond as Lambda bills it. */
  billedMs: number;
  /** API Gateway requests, in 512 KB units of the request body (HTTP routes only). */
  apiRequests: number;
}

/**
 * The judge's calls priced as the Bedrock judge's would be: one Converse call per trace and type,
 * with the prompt that judge sends (shared/domain/evaluation/prompts.ts) as input tokens and the
 * verdict as output tokens, both estimated as the service estimates them (4 characters a token).
 */
export interface JudgeUsage {
  calls: number;
  tracesJudged: number;
  inputTokens: number;
  outputTokens: number;
}

export interface Usage {
  /** By handler module. */
  functions: Map<string, FunctionUsage>;
  /** By the handler module that made the calls (`outside any function` for none). */
  dynamodb: Map<string, DynamoUsage>;
  /** By catalog queue id. */
  queues: Map<string, QueueUsage>;
  judge: JudgeUsage;
}

const OUTSIDE_FUNCTIONS = 'outside any function';
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const entry = <T>(map: Map<string, T>, key: string, empty: () => T): T => map.get(key) ?? map.set(key, empty()).get(key)!;

function apiRequestUnits(event: APIGatewayProxyEventV2): number {
  const bytes = event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0;
  return Math.max(1, Math.ceil(bytes / PRICES.apiGateway.meteredBytes));
}

/**
 * Counts what the local service would be billed for on AWS, while recording. Install before the
 * service handles its first request (the store's clients are made then); pass `loadModule` to the
 * local runtime so that every invocation is timed and the calls it makes are attributed to it.
 */
export function createMeter() {
  const usage: Usage = { functions: new Map(), dynamodb: new Map(), queues: new Map(), judge: { calls: 0, tracesJudged: 0, inputTokens: 0, outputTokens: 0 } };
  const running = new AsyncLocalStorage<string>();
  let recording = false;

  const timed = (module: string, handler: (event: unknown, context: unknown) => unknown) => async (event: unknown, context: unknown) => {
    if (!recording) return handler(event, context);
    const started = performance.now();
    try {
      return await running.run(module, () => handler(event, context));
    } finally {
      const fn = entry(usage.functions, module, () => ({ invocations: 0, billedMs: 0, apiRequests: 0 }));
      fn.invocations++;
      fn.billedMs += Math.ceil(performance.now() - started);
      if (module.startsWith('functions/http/')) fn.apiRequests += apiRequestUnits(event as APIGatewayProxyEventV2);
    }
  };

  const loadModule: LoadModule = async (modulePath) => {
    const module = (await import(pathToFileURL(join(REPO_ROOT, modulePath)).href)) as { handler: (event: unknown, context: unknown) => unknown };
    return { ...module, handler: timed(modulePath, module.handler) };
  };

  const judged = new WeakSet<Trajectory>();
  function countJudgeCall(type: LlmAlertType, trajectory: Trajectory, verdict: Verdict): void {
    const prompt = judgePrompt(type, trajectory);
    usage.judge.calls++;
    usage.judge.inputTokens += estimateTokens(prompt.system) + estimateTokens(prompt.user);
    usage.judge.outputTokens += estimateTokens(JSON.stringify(verdict));
    // The evaluation judges every type of one trace with the same trajectory.
    if (!judged.has(trajectory)) usage.judge.tracesJudged++;
    judged.add(trajectory);
  }

  function install(): void {
    meterDynamoDb({ recording: () => recording, usage: () => entry(usage.dynamodb, running.getStore() ?? OUTSIDE_FUNCTIONS, emptyDynamoUsage) });
    meterSqs({ recording: () => recording, usage: (queueId) => entry(usage.queues, queueId, emptyQueueUsage) });
    const judge = builtinJudge.judge.bind(builtinJudge);
    builtinJudge.judge = async (type, trajectory) => {
      const judgement = await judge(type, trajectory);
      if (recording) countJudgeCall(type, trajectory, judgement.verdict);
      return judgement;
    };
  }

  return {
    install,
    loadModule,
    start: () => void (recording = true),
    stop: () => void (recording = false),
    usage,
  };
}

export type Meter = ReturnType<typeof createMeter>;
