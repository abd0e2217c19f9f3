import { createHash } from 'node:crypto';
import { InvalidCursorError } from './errors.js';

/**
 * The page cursor of GET /events. It holds only a position (the last event's start time and id)
 * and a tag binding it to the organisation and the filters it was issued for. The adapter rebuilds
 * the DynamoDB start key inside the caller's own index partition from the position, so no cursor,
 * whatever its content, can reach another organisation's items; the tag turns a cursor from another
 * organisation or another query into a clear 400 instead of a silently different page.
 */
export interface EventPosition {
  startsAt: string;
  id: string;
}

export interface CursorScope {
  organisationId: string;
  from?: string;
  to?: string;
}

const VERSION = 'e1';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function scopeTag(scope: CursorScope): string {
  return createHash('sha256')
    .update(`${scope.organisationId}\n${scope.from ?? ''}\n${scope.to ?? ''}`)
    .digest('base64url')
    .slice(0, 16);
}

export function encodeEventCursor(position: EventPosition, scope: CursorScope): string {
  return Buffer.from(
    JSON.stringify([VERSION, position.startsAt, position.id, scopeTag(scope)]),
    'utf8',
  ).toString('base64url');
}

export function decodeEventCursor(cursor: string, scope: CursorScope): EventPosition {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!Array.isArray(parts) || parts.length !== 4) throw new InvalidCursorError();
  const [version, startsAt, id, tag] = parts as unknown[];
  if (
    version !== VERSION ||
    typeof startsAt !== 'string' ||
    !TIMESTAMP.test(startsAt) ||
    Number.isNaN(Date.parse(startsAt)) ||
    typeof id !== 'string' ||
    !UUID.test(id) ||
    tag !== scopeTag(scope)
  ) {
    throw new InvalidCursorError();
  }
  return { startsAt, id };
}
