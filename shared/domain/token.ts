import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const PREFIX_LENGTH = 8;
export const SECRET_LENGTH = 40;
/** Bounds for accepting a token: generous enough for future lengths, tight enough to refuse junk cheaply. */
const PREFIX_BOUNDS = '{4,32}';
const SECRET_BOUNDS = '{32,128}';

/** Uniform random letters and digits: bytes of 248 and above are dropped so that every character is equally likely. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export interface NewToken {
  token: string;
  prefix: string;
  hash: string;
}

export function generateToken(tag: string): NewToken {
  const prefix = randomAlphanumeric(PREFIX_LENGTH);
  const token = `${tag}_${prefix}_${randomAlphanumeric(SECRET_LENGTH)}`;
  return { token, prefix, hash: hashToken(token) };
}

/** The secret is long and random, so one SHA-256 is enough at rest (no password stretching needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function tokenMatchesHash(token: string, storedHash: string): boolean {
  const actual = Buffer.from(hashToken(token), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function tokenPattern(tag: string): string {
  return `${escapeRegExp(tag)}_[A-Za-z0-9]${PREFIX_BOUNDS}_[A-Za-z0-9]${SECRET_BOUNDS}`;
}

/**
 * The whole `Authorization` header as a regular expression. API Gateway uses it as the authorizer's
 * identity validation expression, so a malformed header is answered 401 without invoking the Lambda;
 * the local gateway applies the same one. The scheme is case-insensitive (RFC 9110), one space.
 */
export function bearerHeaderPattern(tag: string): string {
  return `^[Bb][Ee][Aa][Rr][Ee][Rr] ${tokenPattern(tag)}$`;
}

/** The token inside an `Authorization` header, with its prefix, or undefined when the header is malformed. */
export function parseBearer(
  header: string | undefined,
  tag: string,
): { token: string; prefix: string } | undefined {
  if (header === undefined || header.length > 512) return undefined;
  if (!new RegExp(bearerHeaderPattern(tag)).test(header)) return undefined;
  const token = header.slice('Bearer '.length);
  const prefix = token.split('_')[tag.split('_').length];
  return prefix === undefined ? undefined : { token, prefix };
}

export function tokenIdFor(prefix: string): string {
  return `tok_${prefix}`;
}

export function prefixOfTokenId(id: string): string | undefined {
  const match = /^tok_([A-Za-z0-9]{4,32})$/.exec(id);
  return match?.[1];
}

export function parseScopes(value: string): Scope[] {
  const requested = value.split(/[\s,]+/).filter(Boolean);
  const unknown = requested.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (requested.length === 0 || unknown.length > 0) {
    throw new Error(
      `Scopes must be one or more of ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  }
  return SCOPES.filter((s) => requested.includes(s));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
