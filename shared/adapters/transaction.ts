import {
  TransactionCanceledException,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { dynamodb } from './dynamodb.js';

/** One write of a transaction, with the error to raise when its condition is what cancelled it. */
export interface TransactionItem {
  write: TransactWriteItem;
  onConditionFailed?: () => Error;
}

/**
 * All or nothing: a state change, the outbox event it emits and the idempotency record of the
 * request that made it are written together, so none can exist without the others.
 */
export async function commitTransaction(items: TransactionItem[]): Promise<void> {
  try {
    await dynamodb().send(new TransactWriteItemsCommand({ TransactItems: items.map((i) => i.write) }));
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const failed = (error.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      const raise = items[failed]?.onConditionFailed;
      if (raise) throw raise();
    }
    throw error;
  }
}
