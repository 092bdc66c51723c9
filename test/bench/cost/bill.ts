import { catalog, jobModule, workerModule } from '#shared/catalog.ts';
import { priceTable } from '#shared/domain/pricing/estimate.ts';
import type { Deployment } from './deployment.ts';
import type { DynamoUsage } from './dynamodb-meter.ts';
import type { FunctionUsage, Usage } from './meter.ts';
import { PRICES } from './prices.ts';
import type { Replayed } from './replay.ts';
import type { QueueUsage } from './sqs-meter.ts';
import { type EntityStorage, MONTH_DAYS } from './storage.ts';

export interface CostLine {
  item: string;
  quantity: number;
  unit: string;
  dollars: number;
}

export interface Bill {
  /** Everything but the judging and the notifications, for the replayed workload. */
  pipeline: CostLine[];
  /** The LLM judging: Bedrock, the evaluate worker, its queue, its verdicts' storage. */
  judging: CostLine[];
  /** Alert e-mails and SMS of the replay: their number follows the alert policy (cooldowns, a cap per hour), not the span volume. */
  notifications: CostLine[];
  /** Whatever the traffic: the schedules and the event source mappings' idle polls. */
  fixedMonthly: CostLine[];
}

const JUDGE_WORKER = workerModule('evaluate');
const JUDGE_QUEUE = 'evaluate';
/**
 * An SQS event source mapping long-polls (20 s) with about five pollers while a queue is idle: about
 * 15 receives a minute per queue, whatever the traffic.
 */
const IDLE_RECEIVES_PER_QUEUE_PER_MINUTE = 15;
const MINUTES_PER_MONTH = MONTH_DAYS * 24 * 60;

const perMillion = (count: number, pricePerMillion: number) => (count * pricePerMillion) / 1_000_000;
const sum = <T>(items: Iterable<T>, pick: (item: T) => number) => [...items].reduce((total, item) => total + pick(item), 0);
const line = (item: string, quantity: number, unit: string, dollars: number): CostLine => ({ item, quantity, unit, dollars });

function memoryGbOf(deployment: Deployment, module: string): number {
  const fn = deployment.functions.get(module);
  if (!fn) throw new Error(`${module} ran locally but the CDK app deploys no function for it`);
  if (fn.architecture !== PRICES.lambda.architecture)
    throw new Error(`${module} is ${fn.architecture}; the price table has ${PRICES.lambda.architecture} only`);
  return fn.memoryMb / 1024;
}

function lambdaLines(label: string, functions: ReadonlyArray<[string, FunctionUsage]>, deployment: Deployment): CostLine[] {
  const invocations = sum(functions, ([, f]) => f.invocations);
  const gbSeconds = sum(functions, ([module, f]) => (f.billedMs / 1000) * memoryGbOf(deployment, module));
  return [
    line(`Lambda requests${label}`, invocations, 'invocations', perMillion(invocations, PRICES.lambda.perMillionRequests)),
    line(`Lambda compute${label} (configured memory × measured duration)`, gbSeconds, 'GB-s', gbSeconds * PRICES.lambda.perGbSecond),
  ];
}

function dynamoLines(label: string, usages: readonly DynamoUsage[]): CostLine[] {
  const tableWrites = sum(usages, (u) => u.tableWriteUnits);
  const indexWrites = sum(usages, (u) => u.indexWriteUnits);
  const failedWrites = sum(usages, (u) => u.failedConditionalWrites);
  const reads = sum(usages, (u) => u.tableReadUnits);
  const { perMillionWriteRequestUnits: write, perMillionReadRequestUnits: read } = PRICES.dynamodb;
  return [
    line(`DynamoDB writes${label}, table (ConsumedCapacity)`, tableWrites, 'WRU', perMillion(tableWrites, write)),
    line(`DynamoDB writes${label}, GSI entries (computed from item sizes)`, indexWrites, 'WRU', perMillion(indexWrites, write)),
    line(`DynamoDB writes${label}, failed conditions (1 unit each)`, failedWrites, 'WRU', perMillion(failedWrites, write)),
    line(`DynamoDB reads${label} (ConsumedCapacity)`, reads, 'RRU', perMillion(reads, read)),
  ];
}

function storageLines(label: string, entities: readonly EntityStorage[]): CostLine[] {
  const tableGbMonths = sum(entities, (e) => e.tableGbMonths);
  const gbMonths = tableGbMonths + sum(entities, (e) => e.indexGbMonths);
  return [
    line(`DynamoDB storage${label}, table + GSIs for the items' TTL`, gbMonths, 'GB-month', gbMonths * PRICES.dynamodb.storagePerGbMonth),
    line(`DynamoDB point-in-time recovery${label}`, tableGbMonths, 'GB-month', tableGbMonths * PRICES.dynamodb.pitrPerGbMonth),
  ];
}

function sqsLine(label: string, queues: readonly QueueUsage[]): CostLine {
  const requests = sum(queues, (q) => q.billedRequests);
  return line(`SQS requests${label} (64 KB chunks; idle polls apart)`, requests, 'requests', perMillion(requests, PRICES.sqs.perMillionRequests));
}

function bedrockLines(usage: Usage, modelId: string): CostLine[] {
  const price = priceTable().priceOf(modelId);
  if (!price) throw new Error(`shared/domain/pricing has no price for the judge's model ${modelId}`);
  const { inputTokens, outputTokens, calls } = usage.judge;
  return [
    line(`Bedrock ${modelId} input tokens (${calls} Converse calls)`, inputTokens, 'tokens', perMillion(inputTokens, price.inputPerMTok)),
    line(`Bedrock ${modelId} output tokens`, outputTokens, 'tokens', perMillion(outputTokens, price.outputPerMTok)),
  ];
}

/** Each schedule's measured average run, as often as its rule fires in a month; and the idle polls. */
function fixedMonthlyLines(usage: Usage, deployment: Deployment): CostLine[] {
  const schedules = catalog.schedules.map((s) => {
    const module = jobModule(s.job);
    const measured = usage.functions.get(module);
    const runs = MINUTES_PER_MONTH / s.everyMinutes;
    const averageMs = measured ? measured.billedMs / measured.invocations : 0;
    return { module, runs, gbSeconds: runs * (averageMs / 1000) * memoryGbOf(deployment, module) };
  });
  const runs = sum(schedules, (s) => s.runs);
  const gbSeconds = sum(schedules, (s) => s.gbSeconds);
  const idlePolls = catalog.queues.length * IDLE_RECEIVES_PER_QUEUE_PER_MINUTE * MINUTES_PER_MONTH;
  return [
    line('Lambda requests, schedules', runs, 'invocations', perMillion(runs, PRICES.lambda.perMillionRequests)),
    line('Lambda compute, schedules (measured average run)', gbSeconds, 'GB-s', gbSeconds * PRICES.lambda.perGbSecond),
    line(`SQS idle long polls (${catalog.queues.length} queues)`, idlePolls, 'requests', perMillion(idlePolls, PRICES.sqs.perMillionRequests)),
  ];
}

const isJudgeVerdict = (kind: string) => kind.endsWith('(judge verdict)');

export function billOf(usage: Usage, replayed: Replayed, storage: Map<string, EntityStorage>, deployment: Deployment): Bill {
  const functions = [...usage.functions];
  const dynamo = [...usage.dynamodb];
  const queues = [...usage.queues];
  const entities = [...storage];
  const apiRequests = sum(functions, ([, f]) => f.apiRequests);
  return {
    pipeline: [
      line('API Gateway HTTP API requests (512 KB units)', apiRequests, 'requests', perMillion(apiRequests, PRICES.apiGateway.perMillionHttpRequests)),
      ...lambdaLines(
        '',
        functions.filter(([module]) => module !== JUDGE_WORKER),
        deployment,
      ),
      ...dynamoLines(
        '',
        dynamo.filter(([module]) => module !== JUDGE_WORKER).map(([, u]) => u),
      ),
      ...storageLines(
        '',
        entities.filter(([kind]) => !isJudgeVerdict(kind)).map(([, e]) => e),
      ),
      sqsLine(
        '',
        queues.filter(([id]) => id !== JUDGE_QUEUE).map(([, q]) => q),
      ),
    ],
    judging: [
      ...bedrockLines(usage, deployment.judgeModelId),
      ...lambdaLines(
        ', evaluate worker',
        functions.filter(([module]) => module === JUDGE_WORKER),
        deployment,
      ),
      ...dynamoLines(
        ', evaluate worker',
        dynamo.filter(([module]) => module === JUDGE_WORKER).map(([, u]) => u),
      ),
      ...storageLines(
        ', judge verdicts',
        entities.filter(([kind]) => isJudgeVerdict(kind)).map(([, e]) => e),
      ),
      sqsLine(
        ', evaluate queue',
        queues.filter(([id]) => id === JUDGE_QUEUE).map(([, q]) => q),
      ),
    ],
    notifications: [
      line('SES e-mails', replayed.emails, 'e-mails', replayed.emails * PRICES.ses.perEmail),
      line('SNS SMS, US (carrier fees on top)', replayed.sms, 'messages', replayed.sms * PRICES.sns.perUsSms),
    ],
    fixedMonthly: fixedMonthlyLines(usage, deployment),
  };
}

export const totalOf = (lines: readonly CostLine[]): number => sum(lines, (l) => l.dollars);
