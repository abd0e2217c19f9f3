import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one table definition: the CDK stack and the local stack both build the table from it.
 * Single-table design; every key is a string (`ORG#…`, `TOKEN#…`, `RATE#…`).
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // Sparse: only timers that have not fired carry `timerPartition`, so a Query for `dueAt <= now`
    // reads what is due and nothing else. `dueAt` is UTC ISO 8601, so string order is time order.
    { name: 'timers', partitionKey: 'timerPartition', sortKey: 'dueAt' },
  ],
  /** Epoch seconds; lets DynamoDB drop spent rate-limit counters. Nothing depends on the deletion. */
  ttlAttribute: 'expiresAt',
  /** New images feed the outbox relay (filtered to outbox items at the event source mapping). */
  streamView: 'NEW_IMAGE',
} as const;

/** Rate counters' partition keys start with this: the one kind of item every API function may update. */
export const RATE_COUNTER_KEY_PREFIX = 'RATE#';

/**
 * One item per webhook endpoint that has failed or answered slowly (`ORG#<org>#WEBHOOK#<id>`,
 * sort key `PACE`): its strikes in a row and the slots its attempts hold while it is limited
 * (shared/domain/endpoint-pace.ts). Only the delivery function reads and writes it.
 */
export const ENDPOINT_PACE_SORT_KEY = 'PACE';

/**
 * gsi1 partition of the deliveries waiting for a next attempt (sorted by `<nextAttemptAt>#<deliveryId>`;
 * items `PENDING#<deliveryId>` in the endpoint's deliveries partition): `mis deliveries stuck` and the
 * timers function's StuckDeliveries metric read the overdue ones.
 */
export const PENDING_DELIVERIES_INDEX_KEY = 'DELIVERIES#PENDING';

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyNames = [
    TABLE.partitionKey,
    TABLE.sortKey,
    ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView },
    AttributeDefinitions: keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
