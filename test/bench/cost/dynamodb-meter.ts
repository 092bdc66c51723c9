import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { indexesOf, itemSize, kindOf, writeUnits } from './item-size.ts';

/** What one function's DynamoDB calls consumed. */
export interface DynamoUsage {
  calls: number;
  /** Calls whose answer carried ConsumedCapacity (dynalite reports it for the table, not for indexes). */
  callsWithCapacity: number;
  tableReadUnits: number;
  tableWriteUnits: number;
  /** Computed here from the written items: every index entry written or deleted, by item size. */
  indexWriteUnits: number;
  /** Failed conditions: billed as a write of at least one unit, and answered without ConsumedCapacity. */
  failedConditionalWrites: number;
  /** Batch deletes, and updates that asked for other ReturnValues: their index writes are not known. */
  writesWithoutImage: number;
  /** Table write units by item kind, computed from the items written (the new image; DynamoDB bills the larger of old and new). */
  computedWritesByKind: Record<string, number>;
  /** Read units as reported, by what was read: the operation, the index and the partition key's shape. */
  readsByKind: Record<string, number>;
}

export const emptyDynamoUsage = (): DynamoUsage => ({
  calls: 0,
  callsWithCapacity: 0,
  tableReadUnits: 0,
  tableWriteUnits: 0,
  indexWriteUnits: 0,
  failedConditionalWrites: 0,
  writesWithoutImage: 0,
  computedWritesByKind: {},
  readsByKind: {},
});

type Item = Record<string, unknown>;
type Input = Record<string, unknown>;

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
/** The item image each kind of single-item write can return, to find the index entries it touched. */
const IMAGE_OF: Record<string, string> = { UpdateItemCommand: 'ALL_NEW', DeleteItemCommand: 'ALL_OLD' };

function capacityOf(consumed: unknown): number | undefined {
  if (consumed === undefined) return undefined;
  const entries = (Array.isArray(consumed) ? consumed : [consumed]) as Array<{ CapacityUnits?: number }>;
  return entries.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
}

/** A partition key with its ids left out: `TENANT#…#TRACE#…`. */
const keyShape = (pk: unknown): string =>
  String(pk ?? '?')
    .split('#')
    .map((part) => (/^[A-Z][A-Z0-9_]*$/.test(part) ? part : '…'))
    .join('#');

/** What a read read: `Query GSI2 TENANT#…#AGENT#…#TRACES`. */
function readKind(command: string, input: Input): string {
  const key = input['Key'] as Item | undefined;
  const partition = key?.['PK'] ?? (input['ExpressionAttributeValues'] as Item | undefined)?.[':pk'];
  const sortKey = key ? ` ${keyShape(key['SK'])}` : '';
  const index = typeof input['IndexName'] === 'string' ? ` ${input['IndexName']}` : '';
  const consistency = input['ConsistentRead'] === true ? ' (consistent)' : '';
  return `${command.replace(/Command$/, '')}${index} ${command === 'BatchGetItemCommand' ? 'batch' : keyShape(partition) + sortKey}${consistency}`;
}

/** A written (or deleted) item: its table write units by kind, and a write per index entry of it. */
function countItem(usage: DynamoUsage, item: Item): void {
  const units = writeUnits(itemSize(item));
  const kind = kindOf(item);
  usage.computedWritesByKind[kind] = (usage.computedWritesByKind[kind] ?? 0) + units;
  usage.indexWriteUnits += indexesOf(item).length * units;
}

/** A write whose item is not known (at least one unit), by its partition key's prefix. */
function countUnknownItem(usage: DynamoUsage, key: Item | undefined): void {
  const kind = `${String(key?.['PK'] ?? '?').split('#')[0]} (item not seen)`;
  usage.computedWritesByKind[kind] = (usage.computedWritesByKind[kind] ?? 0) + 1;
  usage.writesWithoutImage++;
}

/** What a write wrote, from the item it put or the image it returned. */
function countItemWrites(usage: DynamoUsage, command: string, input: Input, output: Input): void {
  if (command === 'PutItemCommand') countItem(usage, input['Item'] as Item);
  if (command === 'BatchWriteItemCommand') {
    for (const requests of Object.values(input['RequestItems'] as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>)) {
      for (const request of requests) {
        if (request.PutRequest) countItem(usage, request.PutRequest.Item);
        else countUnknownItem(usage, request.DeleteRequest?.Key);
      }
    }
  }
  if (command in IMAGE_OF) {
    if (input['ReturnValues'] !== IMAGE_OF[command]) countUnknownItem(usage, input['Key'] as Item);
    else if (output['Attributes']) countItem(usage, output['Attributes'] as Item);
  }
}

/** The input with ReturnConsumedCapacity, and the item image a write needs to be sized, when the caller asked for none. */
function meteredInput(command: string, input: Input): { input: Input; addedImage: boolean } {
  const metered: Input = { ...input, ReturnConsumedCapacity: 'TOTAL' };
  const addedImage = command in IMAGE_OF && (input['ReturnValues'] === undefined || input['ReturnValues'] === 'NONE');
  if (addedImage) metered['ReturnValues'] = IMAGE_OF[command];
  return { input: metered, addedImage };
}

export interface DynamoMeterHooks {
  recording(): boolean;
  /** The usage record of the function running now. */
  usage(): DynamoUsage;
}

/**
 * Every DynamoDB call of a DocumentClient made with `DynamoDBDocumentClient.from` (shared/store's
 * createDb) goes through a middleware on its client's stack: while recording, it asks for
 * ReturnConsumedCapacity TOTAL and sums what the answers report, and sizes index writes itself,
 * because dynalite reports the table's capacity only. The image the meter asked for is taken out of
 * the answer again, so the caller sees what it asked for.
 */
export function meterDynamoDb(hooks: DynamoMeterHooks): void {
  const from = DynamoDBDocumentClient.from.bind(DynamoDBDocumentClient);
  DynamoDBDocumentClient.from = (client: DynamoDBClient, translateConfig) => {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        if (!hooks.recording() || !(READS.has(command) || WRITES.has(command))) return next(args);
        const usage = hooks.usage();
        const { input, addedImage } = meteredInput(command, args.input as Input);
        usage.calls++;
        try {
          const result = await next({ ...args, input });
          const output = result.output as unknown as Input;
          const units = capacityOf(output['ConsumedCapacity']);
          if (units !== undefined) usage.callsWithCapacity++;
          if (READS.has(command)) {
            usage.tableReadUnits += units ?? 0;
            const kind = readKind(command, input);
            usage.readsByKind[kind] = (usage.readsByKind[kind] ?? 0) + (units ?? 0);
          } else {
            usage.tableWriteUnits += units ?? 0;
            countItemWrites(usage, command, input, output);
          }
          delete output['ConsumedCapacity'];
          if (addedImage) delete output['Attributes'];
          return result;
        } catch (err) {
          if (err instanceof ConditionalCheckFailedException) usage.failedConditionalWrites++;
          throw err;
        }
      },
      { step: 'initialize', name: 'costMeter', override: true },
    );
    return from(client, translateConfig);
  };
}
