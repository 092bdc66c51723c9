import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** What one request read of DynamoDB, by purpose. */
export interface Reads {
  /** Items the list reads evaluated (Query and Scan `ScannedCount`, BatchGetItem answers but rollups'): the page. */
  page: number;
  /** Items COUNT queries evaluated: totals counted within their budget. */
  counted: number;
  /** Rollup items read (buckets and settled days: exact totals, agents' metrics). */
  rollups: number;
  /** Single-item reads (the credential, the tenant, the agent filter, a session's figures). */
  gets: number;
  calls: number;
}

const none = (): Reads => ({ page: 0, counted: 0, rollups: 0, gets: 0, calls: 0 });

/**
 * Counts what the service reads of DynamoDB: the bench runs the service in its own process, so
 * wrapping the document client's `send` (every repository's one way to the table) sees every call.
 * Reads are attributed to whatever request is in flight: the bench sends one at a time.
 */
export function meterReads() {
  let current = none();
  const send = DynamoDBDocumentClient.prototype.send;
  DynamoDBDocumentClient.prototype.send = async function metered(this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
    const output = (await (send as (...args: unknown[]) => Promise<unknown>).call(this, command, ...rest)) as Record<string, any>;
    current.calls++;
    if (command instanceof QueryCommand || command instanceof ScanCommand) {
      const input = command.input as Record<string, any>;
      const partition = String(input['ExpressionAttributeValues']?.[':pk'] ?? input['ExpressionAttributeValues']?.[':kpk'] ?? '');
      const scanned = Number(output['ScannedCount'] ?? 0);
      if (input['Select'] === 'COUNT') current.counted += scanned;
      else if (partition.includes('#ROLLUPV2#')) current.rollups += scanned;
      else current.page += scanned;
    } else if (command instanceof BatchGetCommand) {
      for (const items of Object.values((output['Responses'] ?? {}) as Record<string, Array<Record<string, unknown>>>))
        for (const item of items) {
          if (String(item['PK']).includes('#ROLLUPV2#')) current.rollups++;
          else current.page++;
        }
    } else if (command instanceof GetCommand) {
      current.gets++;
    }
    return output;
  } as typeof send;
  return {
    /** What was read since the last call. */
    take(): Reads {
      const taken = current;
      current = none();
      return taken;
    },
    stop() {
      DynamoDBDocumentClient.prototype.send = send;
    },
  };
}
