import type { PolicyDocument } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { policyAllows } from '../../infra/local/policy.js';
import { allowWholeApi, wholeApiArn } from '../../shared/domain/authorizer-policy.js';

const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/public/v1/ping';
const caller = {
  organisationId: 'org-1',
  tokenId: 'tok_abcd1234',
  scopes: 'read write',
  rateLimitPerMinute: 60,
};

describe('authorizer policy', () => {
  it('allows every method and path of the stage, so a cached decision serves the next path too', () => {
    expect(wholeApiArn(methodArn)).toBe('arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*');
    const result = allowWholeApi(methodArn, caller);
    const other = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/api/public/v1/incidents';
    expect(policyAllows(result.policyDocument, methodArn)).toBe(true);
    expect(policyAllows(result.policyDocument, other)).toBe(true);
    expect(policyAllows(result.policyDocument, methodArn.replace('/prod/', '/dev/'))).toBe(false);
  });

  it('passes the caller on as context and names the token as principal', () => {
    const result = allowWholeApi(methodArn, caller);
    expect(result.principalId).toBe('tok_abcd1234');
    expect(result.context).toEqual(caller);
  });

  it('lets an explicit Deny win, as API Gateway does', () => {
    const policy: PolicyDocument = {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:*' },
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: methodArn },
      ],
    };
    expect(policyAllows(policy, methodArn)).toBe(false);
  });

  it('refuses an ARN it cannot read', () => {
    expect(() => wholeApiArn('not-an-arn')).toThrow();
  });
});
