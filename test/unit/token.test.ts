import { describe, expect, it } from 'vitest';
import {
  bearerHeaderPattern,
  generateToken,
  hashToken,
  parseBearer,
  parseScopes,
  prefixOfTokenId,
  randomAlphanumeric,
  SECRET_LENGTH,
  tokenIdFor,
  tokenMatchesHash,
} from '../../shared/domain/token.js';

describe('token format', () => {
  it('issues svc_<prefix>_<secret> with a letters-and-digits secret of at least 32 characters', () => {
    const { token, prefix } = generateToken('svc');
    const [tag, tokenPrefix, secret] = token.split('_');
    expect(tag).toBe('svc');
    expect(tokenPrefix).toBe(prefix);
    expect(secret).toMatch(/^[A-Za-z0-9]+$/);
    expect(secret?.length).toBe(SECRET_LENGTH);
    expect(SECRET_LENGTH).toBeGreaterThanOrEqual(32);
  });

  it('never issues the same prefix or secret twice in a thousand tries', () => {
    const tokens = Array.from({ length: 1000 }, () => generateToken('svc'));
    expect(new Set(tokens.map((t) => t.prefix)).size).toBe(1000);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(1000);
  });

  it('draws every letter and digit', () => {
    const sample = randomAlphanumeric(20_000);
    expect(new Set(sample).size).toBe(62);
  });

  it('honours another token tag', () => {
    const { token } = generateToken('acme');
    expect(token.startsWith('acme_')).toBe(true);
    expect(parseBearer(`Bearer ${token}`, 'acme')?.token).toBe(token);
    expect(parseBearer(`Bearer ${token}`, 'svc')).toBeUndefined();
  });
});

describe('token hashing', () => {
  it('stores a SHA-256 hex digest, not the token', () => {
    const { token, hash } = generateToken('svc');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token.split('_')[2]);
    expect(hashToken(token)).toBe(hash);
  });

  it('matches only the exact token', () => {
    const { token, hash } = generateToken('svc');
    expect(tokenMatchesHash(token, hash)).toBe(true);
    expect(tokenMatchesHash(`${token}x`, hash)).toBe(false);
    expect(tokenMatchesHash(token.slice(0, -1), hash)).toBe(false);
    expect(tokenMatchesHash(token, 'not-hex')).toBe(false);
  });
});

describe('Authorization header parsing', () => {
  const { token, prefix } = generateToken('svc');

  it('accepts "Bearer <token>" with any case of the scheme', () => {
    expect(parseBearer(`Bearer ${token}`, 'svc')).toEqual({ token, prefix });
    expect(parseBearer(`bearer ${token}`, 'svc')).toEqual({ token, prefix });
    expect(parseBearer(`BEARER ${token}`, 'svc')).toEqual({ token, prefix });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['no scheme', token],
    ['another scheme', `Basic ${token}`],
    ['two spaces', `Bearer  ${token}`],
    ['trailing space', `Bearer ${token} `],
    ['leading space', ` Bearer ${token}`],
    ['tab', `Bearer\t${token}`],
    ['short secret', `Bearer svc_${prefix}_abc`],
    ['no prefix', `Bearer svc__${'a'.repeat(40)}`],
    ['wrong tag', `Bearer xyz_${prefix}_${'a'.repeat(40)}`],
    ['extra part', `Bearer ${token}_more`],
    ['symbol appended', `Bearer ${token}!`],
    ['unicode', `Bearer svc_${prefix}_${'é'.repeat(40)}`],
    ['newline', `Bearer ${token}\n`],
    ['8 KB', `Bearer svc_${prefix}_${'a'.repeat(8 * 1024)}`],
    ['binary', `Bearer ${Buffer.from([0, 1, 2, 255]).toString('latin1')}`],
  ])('refuses a header that is %s', (_case, header) => {
    expect(parseBearer(header, 'svc')).toBeUndefined();
  });

  it('gives API Gateway an anchored identity validation expression that agrees with the parser', () => {
    const pattern = new RegExp(bearerHeaderPattern('svc'));
    expect(pattern.source.startsWith('^')).toBe(true);
    expect(pattern.source.endsWith('$')).toBe(true);
    expect(pattern.test(`Bearer ${token}`)).toBe(true);
    expect(pattern.test(`Bearer ${token}!`)).toBe(false);
    expect(pattern.test(`Bearer  ${token}`)).toBe(false);
  });
});

describe('token ids and scopes', () => {
  it('derives the public id from the prefix and back', () => {
    expect(tokenIdFor('abc12345')).toBe('tok_abc12345');
    expect(prefixOfTokenId('tok_abc12345')).toBe('abc12345');
    expect(prefixOfTokenId('abc12345')).toBeUndefined();
    expect(prefixOfTokenId('tok_../x')).toBeUndefined();
  });

  it('parses scope lists and refuses unknown scopes', () => {
    expect(parseScopes('read')).toEqual(['read']);
    expect(parseScopes('write,read')).toEqual(['read', 'write']);
    expect(() => parseScopes('admin')).toThrow(/unknown: admin/);
    expect(() => parseScopes('')).toThrow();
  });
});
