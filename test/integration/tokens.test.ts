import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as authorize } from '../../functions/authorizer/handler.js';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { createOrganisation, getOrganisation } from '../../shared/adapters/organisation-store.js';
import {
  findTokenByPrefix,
  issueToken,
  listTokens,
  revokeToken,
  summariseToken,
} from '../../shared/adapters/token-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { STANDARD_RATE_LIMIT } from '../../shared/domain/organisation.js';
import { hashToken } from '../../shared/domain/token.js';
import { useFreshTable } from '../support/table.js';

const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:api1/dev/GET/api/public/v1/ping';

beforeAll(async () => {
  await useFreshTable();
});

describe('organisations', () => {
  it('are created with a UUID, a tier and their limit, and read back', async () => {
    const org = await createOrganisation({
      name: '  Friends of the Park ',
      tier: 'enterprise',
      rateLimitPerMinute: 600,
    });
    expect(org.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getOrganisation(org.id)).toEqual({ ...org, name: 'Friends of the Park' });
  });

  it('refuse an empty name and a custom limit outside the enterprise tier', async () => {
    await expect(createOrganisation({ name: ' ', tier: 'standard' })).rejects.toThrow(RangeError);
    await expect(
      createOrganisation({ name: 'x', tier: 'standard', rateLimitPerMinute: 100 }),
    ).rejects.toThrow(/enterprise/);
  });

  it('store a limit only when it is their own, so the standard one applies to all on it', async () => {
    const standard = await createOrganisation({ name: 'Standard', tier: 'standard' });
    const enterpriseDefault = await createOrganisation({ name: 'Enterprise', tier: 'enterprise' });
    const own = await createOrganisation({ name: 'Own', tier: 'enterprise', rateLimitPerMinute: 900 });
    const stored = async (id: string) => {
      const { Item } = await dynamodb().send(
        new GetItemCommand({ TableName: tableName(), Key: marshall(keys.organisation(id)) }),
      );
      return unmarshall(Item ?? {}).rateLimitPerMinute;
    };
    expect([await stored(standard.id), await stored(enterpriseDefault.id), await stored(own.id)]).toEqual([
      undefined,
      undefined,
      900,
    ]);
    expect((await getOrganisation(standard.id))?.rateLimitPerMinute).toBe(STANDARD_RATE_LIMIT);
    expect((await getOrganisation(enterpriseDefault.id))?.rateLimitPerMinute).toBe(STANDARD_RATE_LIMIT);
    expect((await getOrganisation(own.id))?.rateLimitPerMinute).toBe(900);
  });
});

describe('tokens', () => {
  it('are stored only as a hash, with scopes, label and times', async () => {
    const org = await createOrganisation({ name: 'Org', tier: 'standard' });
    const { token, record } = await issueToken({
      organisationId: org.id,
      scopes: ['read'],
      name: 'reporting',
    });
    const stored = await findTokenByPrefix(record.prefix);
    expect(stored).toEqual(record);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored?.hash).toBe(hashToken(token));
    expect(stored).toMatchObject({ scopes: ['read'], name: 'reporting', revokedAt: null, lastUsedAt: null });
    expect(summariseToken(record)).not.toHaveProperty('hash');
  });

  it('cannot be issued for an unknown organisation', async () => {
    await expect(
      issueToken({ organisationId: '00000000-0000-4000-8000-000000000000', scopes: ['read'] }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('are listed per organisation only', async () => {
    const [a, b] = await Promise.all([
      createOrganisation({ name: 'A', tier: 'standard' }),
      createOrganisation({ name: 'B', tier: 'standard' }),
    ]);
    const first = await issueToken({ organisationId: a.id, scopes: ['read'] });
    const second = await issueToken({ organisationId: a.id, scopes: ['read', 'write'] });
    await issueToken({ organisationId: b.id, scopes: ['read'] });
    const listed = await listTokens(a.id);
    expect(listed.map((t) => t.id).sort()).toEqual([first.record.id, second.record.id].sort());
  });

  it('are revoked once; a second revocation keeps the first time; an unknown id is not found', async () => {
    const org = await createOrganisation({ name: 'Org', tier: 'standard' });
    const { record } = await issueToken({ organisationId: org.id, scopes: ['read'] });
    const first = await revokeToken(record.id, new Date('2026-01-01T00:00:00.000Z'));
    const second = await revokeToken(record.id, new Date('2026-02-01T00:00:00.000Z'));
    expect(first.revokedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(second.revokedAt).toBe('2026-01-01T00:00:00.000Z');
    await expect(revokeToken('tok_unknown1')).rejects.toBeInstanceOf(NotFoundError);
    await expect(revokeToken('not-a-token-id')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('the TOKEN authorizer', () => {
  it('allows a live token with its organisation, scopes and limit as context, and records its use', async () => {
    const org = await createOrganisation({ name: 'Org', tier: 'enterprise', rateLimitPerMinute: 120 });
    const { token, record } = await issueToken({ organisationId: org.id, scopes: ['read', 'write'] });
    const before = Date.now();
    const result = await authorize({ type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn });
    expect(result.context).toEqual({
      organisationId: org.id,
      tokenId: record.id,
      scopes: 'read write',
      rateLimitPerMinute: 120,
    });
    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: 'arn:aws:execute-api:eu-west-1:123456789012:api1/dev/*',
      },
    ]);
    const lastUsedAt = Date.parse(String((await findTokenByPrefix(record.prefix))?.lastUsedAt));
    expect(lastUsedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(lastUsedAt).toBeLessThanOrEqual(Date.now());
  });

  it('throws Unauthorized (never a Deny) for unknown, wrong-secret, malformed and revoked tokens', async () => {
    const org = await createOrganisation({ name: 'Org', tier: 'standard' });
    const { token, record } = await issueToken({ organisationId: org.id, scopes: ['read'] });
    const wrongSecret = `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;
    const unknown = `svc_zzzzzzzz_${'a'.repeat(40)}`;
    await revokeToken(record.id);
    for (const header of [
      `Bearer ${unknown}`,
      `Bearer ${wrongSecret}`,
      `Bearer ${token}x`,
      'Basic abc',
      '',
      `Bearer ${token}`,
    ]) {
      await expect(authorize({ type: 'TOKEN', authorizationToken: header, methodArn })).rejects.toThrow(
        /^Unauthorized$/,
      );
    }
  });
});
