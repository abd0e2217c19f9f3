import { addDays, type UtcDate, utcDateOf } from './calendar.js';
import { ValidationError } from './errors.js';

/** A member as the service records it: a category and a join date, never anything about the person. */
export interface Member {
  id: string;
  membershipType: string;
  region: string | null;
  joinedAt: UtcDate;
  createdAt: string;
}

export interface NewMemberInput {
  membershipType: string;
  joinedAt?: UtcDate;
  region?: string;
}

/** A client ahead of UTC may already be on tomorrow's date. */
export function latestJoinDate(now: Date): UtcDate {
  return addDays(utcDateOf(now), 1);
}

export function newMember(id: string, input: NewMemberInput, now: Date): Member {
  if (input.joinedAt !== undefined && input.joinedAt > latestJoinDate(now)) {
    throw new ValidationError([{ field: 'joinedAt', message: 'The join date cannot be in the future.' }]);
  }
  return {
    id,
    membershipType: input.membershipType,
    region: input.region ?? null,
    joinedAt: input.joinedAt ?? utcDateOf(now),
    createdAt: now.toISOString(),
  };
}
