import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { config } from '../config.ts';
import type { ExternalIssuer } from '../config.ts';
import type { SigningMaterial } from '../domain/accounts/signing-keys.ts';
import { builtinJudge } from '../domain/evaluation/heuristics/index.ts';
import type { Judge } from '../domain/evaluation/judge.ts';
import { templateNarrator, type Narrator } from '../domain/profiles/narrative.ts';
import { createDb, createStore, type Store } from '../store/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { randomIds, type Ids } from './ids.ts';
import { bedrockJudge } from './judge-bedrock.ts';
import { outbox, sesMailer, snsSmsSender, type Mailer, type SmsSender } from './mailer.ts';
import { noMetricsSink, timestreamSink, type MetricsSink } from './metrics-sink.ts';
import { bedrockNarrator } from './narrator.ts';
import { sqsQueue, type QueuePort } from './queue.ts';
import { signingMaterialLoader } from './signing.ts';

/** Every side effect a handler may have. Handlers take these as an argument; tests pass fakes. */
export interface Ports {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: QueuePort;
  mailer: Mailer;
  sms: SmsSender;
  signing: () => Promise<SigningMaterial>;
  externalKeySet: (issuer: ExternalIssuer) => JWTVerifyGetKey;
  metricsSink: MetricsSink;
  /** Judges finished traces for LLM-analysed alerts. */
  judge: Judge;
  /** Writes the narrative parts of agent profiles. */
  narrator: Narrator;
}

function remoteKeySets(): (issuer: ExternalIssuer) => JWTVerifyGetKey {
  const cache = new Map<string, JWTVerifyGetKey>();
  return (issuer) => {
    const url = issuer.jwksUrl ?? `${issuer.issuer.replace(/\/$/, '')}/.well-known/jwks.json`;
    let set = cache.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cooldownDuration: 30_000 });
      cache.set(url, set);
    }
    return set;
  };
}

let ports: Ports | undefined;

/** The real adapters, made once per process (a Lambda container, or the local runtime). */
export function defaultPorts(): Ports {
  if (ports) return ports;
  const clock = systemClock;
  const localOutbox = config.outboxDir ? outbox(config.outboxDir, clock) : undefined;
  ports = {
    store: createStore(createDb(config.tableName)),
    clock,
    ids: randomIds,
    queue: sqsQueue(),
    mailer: config.mail.transport === 'outbox' && localOutbox ? localOutbox : sesMailer(config.mail.from),
    sms: config.sms.transport === 'outbox' && localOutbox ? localOutbox : snsSmsSender(),
    signing: signingMaterialLoader({ seed: config.signingSeed, secretArn: config.signingSeedSecretArn }),
    externalKeySet: remoteKeySets(),
    metricsSink: config.timestream ? timestreamSink(config.timestream.database, config.timestream.table) : noMetricsSink,
    judge: config.evaluation.judge === 'bedrock' ? bedrockJudge({ modelId: config.evaluation.bedrockModelId }) : builtinJudge,
    narrator: config.profiles.narratorModelId ? bedrockNarrator(config.profiles.narratorModelId) : templateNarrator,
  };
  return ports;
}
