import { InvalidCursorError } from './errors.js';

/** Every list: pages of `limit` items, 1 to 100, 20 unless asked. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Opaque page cursors: the DynamoDB key to continue from, base64url-encoded. A cursor is only
 * honoured when its partition is the caller's own, so a forged or foreign cursor cannot reach
 * another organisation's items.
 */
export function encodeCursor(key: Record<string, string>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, partition: { name: string; value: string }, allowed: string[]) {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const valid =
    typeof key === 'object' &&
    key !== null &&
    (key as Record<string, unknown>)[partition.name] === partition.value &&
    Object.entries(key).every(([name, value]) => allowed.includes(name) && typeof value === 'string');
  if (!valid) throw new InvalidCursorError();
  return key as Record<string, string>;
}
