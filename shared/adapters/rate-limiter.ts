import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type RateDecision, rateWindowAt } from '../domain/rate-window.js';
import { dynamodb, isConditionalCheckFailure, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/**
 * Counts one request against the token's current window. The conditional ADD is a single atomic
 * write, so concurrent requests can never push the count past the limit: the one that would is
 * refused by DynamoDB itself, not by a read-then-write race.
 */
export async function consumeRequest(
  tokenId: string,
  limit: number,
  nowMs = Date.now(),
): Promise<RateDecision> {
  const window = rateWindowAt(nowMs);
  try {
    const { Attributes } = await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.rateCounter(tokenId, window.start)),
        UpdateExpression: 'ADD requests :one SET expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeValues: marshall({ ':one': 1, ':limit': limit, ':expiresAt': window.expiresAt }),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const used = Number(unmarshall(Attributes ?? {}).requests);
    return { allowed: true, limit, remaining: Math.max(0, limit - used), resetSeconds: window.resetSeconds };
  } catch (error) {
    if (isConditionalCheckFailure(error)) {
      return { allowed: false, limit, remaining: 0, resetSeconds: window.resetSeconds };
    }
    throw error;
  }
}
