import type { APIGatewayAuthorizerResult } from 'aws-lambda';

export interface CallerContext {
  organisationId: string;
  tokenId: string;
  /** Space-separated, as authorizer context values must be strings, numbers or booleans. */
  scopes: string;
  rateLimitPerMinute: number;
}

/**
 * API Gateway caches the policy per token for the whole stage, so it must allow every method and
 * path of the API: a policy for the first path alone would deny the token's next call elsewhere.
 * `methodArn` is `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{verb}/{path}`.
 */
export function wholeApiArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn || !stage) throw new Error('Unexpected method ARN');
  return `${apiArn}/${stage}/*`;
}

export function allowWholeApi(methodArn: string, caller: CallerContext): APIGatewayAuthorizerResult {
  return {
    principalId: caller.tokenId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(methodArn) }],
    },
    context: { ...caller },
  };
}
