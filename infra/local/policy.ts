import type { PolicyDocument, Statement } from 'aws-lambda';

function resources(statement: Statement): string[] {
  const resource = 'Resource' in statement ? statement.Resource : undefined;
  if (resource === undefined) return [];
  return Array.isArray(resource) ? resource : [resource];
}

function arnMatches(pattern: string, arn: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(arn);
}

/** API Gateway's evaluation of an authorizer policy for one method ARN: an explicit Deny wins. */
export function policyAllows(policy: PolicyDocument, methodArn: string): boolean {
  const applicable = policy.Statement.filter((s) => resources(s).some((r) => arnMatches(r, methodArn)));
  if (applicable.some((s) => s.Effect === 'Deny')) return false;
  return applicable.some((s) => s.Effect === 'Allow');
}
