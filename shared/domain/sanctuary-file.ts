import { ValidationError } from './errors.js';

/**
 * A file kept in the sanctuary until `expiresAt`. The service records its name and expiry only;
 * when the expiry has been processed, `expiredAt` says when and `sanctuary.file.expired` was sent.
 */
export interface SanctuaryFile {
  id: string;
  /** May name a person: shown to API readers, never sent in a webhook. */
  name: string;
  expiresAt: string;
  createdAt: string;
  expiredAt: string | null;
}

export interface RegisterFileInput {
  name: string;
  expiresAt: string;
}

export function registerFile(id: string, input: RegisterFileInput, now: Date): SanctuaryFile {
  const expiresAt = new Date(input.expiresAt);
  if (expiresAt.getTime() <= now.getTime()) {
    throw new ValidationError([{ field: 'expiresAt', message: 'The expiry time must be in the future.' }]);
  }
  return {
    id,
    name: input.name,
    expiresAt: expiresAt.toISOString(),
    createdAt: now.toISOString(),
    expiredAt: null,
  };
}

export function fileView(file: SanctuaryFile) {
  return { ...file, status: file.expiredAt === null ? ('active' as const) : ('expired' as const) };
}

/** What `sanctuary.file.expired` carries: the id and the times, not the name. */
export function fileExpiredEventData(
  id: string,
  expiresAt: string,
  expiredAt: string,
): Record<string, unknown> {
  return { id, expiresAt, expiredAt };
}
