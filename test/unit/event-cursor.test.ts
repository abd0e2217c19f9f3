import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../shared/domain/errors.js';
import { decodeEventCursor, encodeEventCursor } from '../../shared/domain/event-cursor.js';
import { upcomingWindow } from '../../shared/domain/public-event.js';
import { problemForError } from '../../shared/http/problem.js';
import { thrownBy } from '../support/throws.js';

const org = '11111111-1111-4111-8111-111111111111';
const other = '22222222-2222-4222-8222-222222222222';
const position = { startsAt: '2027-01-01T10:00:00.000Z', id: '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93' };

describe('event cursor', () => {
  it('round-trips a position for the same organisation and filters', () => {
    const scope = { organisationId: org, to: '2027-06-01T00:00:00.000Z' };
    expect(decodeEventCursor(encodeEventCursor(position, scope), scope)).toEqual(position);
  });

  it('is opaque URL-safe text that does not spell out the organisation', () => {
    const cursor = encodeEventCursor(position, { organisationId: org });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(cursor, 'base64url').toString()).not.toContain(org);
  });

  it("refuses another organisation's cursor and a cursor issued for other filters", () => {
    const cursor = encodeEventCursor(position, { organisationId: other });
    expect(() => decodeEventCursor(cursor, { organisationId: org })).toThrow(InvalidCursorError);
    const filtered = encodeEventCursor(position, { organisationId: org, from: '2027-01-01T00:00:00.000Z' });
    expect(() => decodeEventCursor(filtered, { organisationId: org })).toThrow(InvalidCursorError);
  });

  it.each([
    ['garbage', '!!!'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    [
      'a DynamoDB key',
      Buffer.from(JSON.stringify({ gsi1pk: `ORG#${other}#PUBLICEVENTS` })).toString('base64url'),
    ],
    ['a bad time', Buffer.from(JSON.stringify(['e1', '2027-01-01', position.id, 'x'])).toString('base64url')],
    ['a bad id', Buffer.from(JSON.stringify(['e1', position.startsAt, 'ORG#x', 'x'])).toString('base64url')],
  ])('refuses %s with a 400 invalid_cursor problem', (_, cursor) => {
    const error = thrownBy(() => decodeEventCursor(cursor, { organisationId: org }), InvalidCursorError);
    const response = problemForError(error);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid_cursor', status: 400 });
  });
});

describe('upcoming window', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');

  it('starts now: a `from` in the past never brings past events back', () => {
    expect(upcomingWindow(now, '2020-01-01T00:00:00Z')).toEqual({ from: '2026-11-22T10:00:00.000Z' });
    expect(upcomingWindow(now)).toEqual({ from: '2026-11-22T10:00:00.000Z' });
  });

  it('normalises offsets to UTC, so that bounds compare with stored times as text', () => {
    expect(upcomingWindow(now, '2027-01-01T12:00:00+02:00', '2027-02-01T00:00:00-05:00')).toEqual({
      from: '2027-01-01T10:00:00.000Z',
      to: '2027-02-01T05:00:00.000Z',
    });
  });

  it('is empty when `to` is already past', () => {
    expect(upcomingWindow(now, undefined, '2026-11-22T09:59:59Z')).toBeUndefined();
  });
});
