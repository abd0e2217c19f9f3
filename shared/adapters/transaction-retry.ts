import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/**
 * A transaction that touches a hot item (an organisation's running counts) is cancelled with
 * `TransactionConflict` when another transaction holds it at the same moment. Nothing was written,
 * so the whole transaction can be tried again; the SDK does not do that by itself.
 */
export function isTransactionConflict(error: unknown): boolean {
  return (
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict')
  );
}

export async function retryOnTransactionConflict<T>(write: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      // Full jitter on an exponential base: concurrent writers spread out instead of colliding again.
      const delayMs = Math.random() * Math.min(1000, 20 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
