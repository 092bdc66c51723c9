import type { AlertConfigPatch } from '../alerts/config.ts';
import type { PageInput, ReadPage, Total } from '../paging/page.ts';

/**
 * What tells agent names apart: names differing only in case, surrounding spaces or Unicode
 * normalization (`é` as one character or as `e` and a combining accent) are one agent's.
 */
export const agentNameKey = (name: string): string => name.trim().normalize('NFC').toLowerCase();

export const AGENT_SOURCES = ['implicit', 'explicit'] as const;

export interface AgentRecord {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  profileSettings: { learningEnabled: boolean };
  /** `implicit`: created on first sight of its name in ingested data; `explicit`: by POST /agents. */
  source: (typeof AGENT_SOURCES)[number];
  /** What the tenant set with PUT /agents/:id/alerts; defaults fill the rest (domain/alerts/config.ts). */
  alertConfig?: AlertConfigPatch;
  createdAt: string;
  updatedAt: string;
  /** When its newest trace started, to within LAST_SEEN_RESOLUTION_MS; kept by the ingest worker. */
  lastSeenAt?: string;
}

/** `lastSeenAt` moves only when it would move by more than this: a busy agent's item is written about once a minute per worker, not per message. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export class AgentNameTakenError extends Error {}

export interface AgentsRepository {
  get(tenantId: string, agentId: string): Promise<AgentRecord | undefined>;
  idForName(tenantId: string, name: string, consistent?: boolean): Promise<string | undefined>;
  /** One page of the tenant's agents in name order. */
  page(tenantId: string, page: PageInput): Promise<ReadPage<AgentRecord>>;
  /** The ids of one page of the tenant's agents in name order (what `page` reads first). */
  idPage(tenantId: string, page: PageInput): Promise<ReadPage<string>>;
  /** These agents of the tenant, in the order given (those that exist). */
  getMany(tenantId: string, agentIds: readonly string[]): Promise<AgentRecord[]>;
  countNames(tenantId: string): Promise<Total>;
  /** Notes that the agent's traces started as late as `startMs`, when that is later than noted by more than LAST_SEEN_RESOLUTION_MS. */
  noteSeen(tenantId: string, agentId: string, startMs: number): Promise<void>;
  /** Agents deleted within the longest retention, newest id order; `complete` is false when there are more than a list leaves out. */
  deletedLately(tenantId: string): Promise<{ agentIds: string[]; complete: boolean }>;
  list(tenantId: string): Promise<AgentRecord[]>;
  /** Creates the agent unless its name is taken in the tenant (AgentNameTakenError). */
  create(agent: AgentRecord): Promise<void>;
  /** The id of the agent with this name, created if it is new; of two callers seeing a new name at once, both end with the same id. */
  ensure(candidate: AgentRecord): Promise<string>;
  /** Undefined when the agent is not the tenant's; AgentNameTakenError when the new name is taken. */
  update(
    tenantId: string,
    agentId: string,
    change: { name?: string; description?: string; learningEnabled?: boolean },
    now: Date,
  ): Promise<AgentRecord | undefined>;
  /** Stores the merged alert configuration; undefined when the agent is not the tenant's. */
  setAlertConfig(tenantId: string, agentId: string, alertConfig: AlertConfigPatch, now: Date): Promise<AgentRecord | undefined>;
  /** Removes the agent and its name claim; its traces are purged separately. */
  delete(tenantId: string, agentId: string): Promise<AgentRecord | undefined>;
  /** How many agents the tenant has; `consistent` sees every agent created before the call. */
  count(tenantId: string, consistent?: boolean): Promise<number>;
  /**
   * Runs `work` while holding the tenant's agent-creation lock, one holder at a time across processes:
   * a check of the plan's agent limit and the creates it allows, so that creates at once cannot each
   * pass the check (ServiceUnavailableError when the lock stays held).
   */
  withCreationLock<T>(tenantId: string, work: () => Promise<T>): Promise<T>;
}
