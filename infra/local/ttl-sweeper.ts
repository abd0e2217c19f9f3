import { DeleteItemCommand, type DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { TABLE } from '../../shared/topology/table.js';

/**
 * DynamoDB Local has no TTL: an item whose `expiresAt` (epoch seconds) has passed stays for ever.
 * On AWS, TTL deletes it some time after (usually within days). This does the same on one machine,
 * so that the delivery log (and every other item with a TTL) does not grow without end. Reads hide
 * expired items anyway, on AWS too, so nothing depends on when this runs.
 */
export async function sweepExpiredItems(
  client: DynamoDBClient,
  tableName: string,
  now = new Date(),
): Promise<number> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const ttl = TABLE.ttlAttribute;
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      // TTL only applies to a Number attribute; a domain field of that name holding a date is left alone.
      FilterExpression: 'attribute_type(#ttl, :number) AND #ttl <= :now',
      ProjectionExpression: 'pk, sk',
      ExpressionAttributeNames: { '#ttl': ttl },
      ExpressionAttributeValues: marshall({ ':number': 'N', ':now': nowSeconds }),
    },
  );
  let removed = 0;
  for await (const page of pages) {
    for (const key of page.Items ?? []) {
      const { pk, sk } = unmarshall(key);
      try {
        await client.send(
          new DeleteItemCommand({
            TableName: tableName,
            Key: marshall({ pk, sk }),
            // Written again meanwhile with a later expiry: keep it, as TTL would.
            ConditionExpression: '#ttl <= :now',
            ExpressionAttributeNames: { '#ttl': ttl },
            ExpressionAttributeValues: marshall({ ':now': nowSeconds }),
          }),
        );
        removed++;
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    }
  }
  return removed;
}

/** How often the local stack sweeps: `TTL_SWEEP_SECONDS`, 10 minutes by default. */
export function startTtlSweeper(options: {
  client: DynamoDBClient;
  tableName: string;
  intervalSeconds?: number;
  onError?: (error: unknown) => void;
}): { stop(): void } {
  const seconds = options.intervalSeconds ?? (Number(process.env.TTL_SWEEP_SECONDS) || 600);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpiredItems(options.client, options.tableName)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = false;
      });
  }, seconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
