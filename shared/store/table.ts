/**
 * The single table's physical shape. Imported by the CDK stateful stack, the local runtime (which
 * creates it in dynalite) and the tests, so the three can never disagree.
 */
export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL deletes the item after it (locally, `infra/local` sweeps). */
  ttlAttribute: 'expiresAt',
  indexes: {
    /** Tenant-wide collections in time order (a tenant's API keys, traces, signals, logs, sessions). */
    gsi1: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** The same collections narrowed to one agent. */
    gsi2: { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    /** Sparse: a user's traces and sessions, and a tenant's signals of one name (selective filters). */
    gsi3: { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  },
} as const;

/** Arguments of CreateTable, for dynalite and tests (the CDK stack builds the same from TABLE). */
export function createTableInput(tableName: string) {
  const { partitionKey, sortKey, indexes } = TABLE;
  const gsis = Object.values(indexes);
  const attributeNames = [partitionKey, sortKey, ...gsis.flatMap((g) => [g.partitionKey, g.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributeNames.map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' as const },
      { AttributeName: sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: gsis.map((g) => ({
      IndexName: g.name,
      KeySchema: [
        { AttributeName: g.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: g.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
