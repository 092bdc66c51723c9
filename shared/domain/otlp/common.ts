/** What span and log mapping share: ids, times, agent names, inherited attributes, rejections. */
import { type AttributeReader, type Attributes, firstString } from './attributes.ts';
import type { OtlpScope } from './decode.ts';

export const isTraceId = (id: string): boolean => /^[0-9a-f]{32}$/.test(id) && !isAbsentId(id);
export const isSpanId = (id: string): boolean => /^[0-9a-f]{16}$/.test(id) && !isAbsentId(id);
/** OTLP writes "no id" as an empty or all-zero id. */
export const isAbsentId = (id: string): boolean => /^0*$/.test(id);

/** Decimal nanoseconds since the epoch → milliseconds (truncated). */
export const nanosToMs = (nanos: string): number => Number(BigInt(nanos) / 1_000_000n);

/** As `nanosToMs`, but null for the zero (or negative) time OTLP uses for "not set". */
export const timeMsOrNull = (nanos: string): number | null => (BigInt(nanos) > 0n ? nanosToMs(nanos) : null);

export const AGENT_NAME_ATTRIBUTE = 'gen_ai.agent.name';

/**
 * The agent: the item's own `gen_ai.agent.name`, else the resource's, else the resource's
 * `service.name` — unless that is the SDK's `unknown_service…` default, which names no agent.
 */
export function agentNameOf(own: AttributeReader, resource: Attributes): string | null {
  const serviceName = firstString(resource, 'service.name');
  const namedService = serviceName?.startsWith('unknown_service') ? null : serviceName;
  return own.string(AGENT_NAME_ATTRIBUTE) ?? firstString(resource, AGENT_NAME_ATTRIBUTE) ?? namedService;
}

/** Attributes every item of one resource and scope carries: `resource.<key>` and the scope's name. */
export function inheritedAttributes(resource: Attributes, scope: OtlpScope): Attributes {
  return {
    ...Object.fromEntries(Object.entries(resource).map(([key, value]) => [`resource.${key}`, value])),
    ...(scope.name && { 'otel.scope.name': scope.name }),
    ...(scope.version && { 'otel.scope.version': scope.version }),
  };
}

export interface RejectionSummary {
  count: number;
  messages: string[];
}

const MAX_MESSAGES = 5;
const MAX_INDEXES_PER_MESSAGE = 5;

/** Items refused individually, reported once per reason: "spans 0, 3, 4: name is missing". */
export class Rejections {
  private readonly indexesByReason = new Map<string, number[]>();
  private count = 0;

  constructor(private readonly itemName: string) {}

  add(index: number, reason: string): void {
    this.count += 1;
    const indexes = this.indexesByReason.get(reason);
    if (indexes) indexes.push(index);
    else this.indexesByReason.set(reason, [index]);
  }

  summary(): RejectionSummary {
    const messages = [...this.indexesByReason].slice(0, MAX_MESSAGES).map(([reason, indexes]) => `${this.describe(indexes)}: ${reason}`);
    return { count: this.count, messages };
  }

  private describe(indexes: number[]): string {
    if (indexes.length === 1) return `${this.itemName} ${indexes[0]}`;
    const shown = indexes.slice(0, MAX_INDEXES_PER_MESSAGE).join(', ');
    const more = indexes.length - MAX_INDEXES_PER_MESSAGE;
    return `${this.itemName}s ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  }
}
