import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createServiceApp } from '../../infra/cdk/service-app.js';

/** A resource as the synthesized CloudFormation template holds it. */
export type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
export type PolicyStatement = { Action: string | string[]; Resource: unknown };

/**
 * The service app with bundling skipped (no esbuild run per function), for assertions about
 * settings, not code; `app` is there for tests that add to the stack and synthesize again.
 */
export function synthWithoutBundling(stage: string): { app: App; stack: Stack } {
  const app = new App({ context: { stage, 'aws:cdk:bundling-stacks': [] } });
  return { app, stack: createServiceApp(app) };
}

export function settingsOnlyTemplate(stage = 'dev'): Template {
  return Template.fromStack(synthWithoutBundling(stage).stack);
}

/** The logical id of the resource whose `Arn` a value points at, wherever in the value it appears. */
export function arnTarget(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(arnTarget).find(Boolean);
  if (value === null || typeof value !== 'object') return undefined;
  const getAtt = (value as Record<string, unknown>)['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[1] === 'Arn') return String(getAtt[0]);
  return Object.values(value).map(arnTarget).find(Boolean);
}

export type TemplateLookups = ReturnType<typeof templateLookups>;

/**
 * Lookups into the template of one stage. The template is read at each call, so that a test file
 * can take these at module scope and synthesize in `beforeAll`.
 */
export function templateLookups(template: () => Template, stage = 'dev') {
  const resources = (type: string) => template().findResources(type) as Record<string, Resource>;

  /** A function's logical id and resource, found by the description the construct gives it. */
  function functionByName(name: string): [string, Resource] {
    const match = Object.entries(resources('AWS::Lambda::Function')).find(
      ([, fn]) => fn.Properties.Description === `${name} (${stage})`,
    );
    if (!match) throw new Error(`No function ${name}`);
    return match;
  }

  const functionId = (name: string): string => functionByName(name)[0];

  /** Every statement of the policies attached to a function's role. */
  function policyStatementsOf(functionName: string): PolicyStatement[] {
    const roleId = arnTarget(functionByName(functionName)[1].Properties.Role);
    return Object.values(resources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref?: string }[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
  }

  const actionsOf = (functionName: string): string[] =>
    policyStatementsOf(functionName).flatMap((statement) => [statement.Action].flat());

  /** The DynamoDB actions a function's role allows, sorted. */
  const tableActionsOf = (functionName: string): string[] =>
    actionsOf(functionName)
      .filter((action) => action.startsWith('dynamodb:'))
      .sort();

  /** The full path of an API Gateway resource, by following its parents up to the root. */
  function resourcePath(id: string): string {
    const resource = resources('AWS::ApiGateway::Resource')[id];
    if (!resource) return '';
    const parent = resource.Properties.ParentId as { Ref?: string };
    return `${parent.Ref ? resourcePath(parent.Ref) : ''}/${String(resource.Properties.PathPart)}`;
  }

  /** The API Gateway methods on a full path (base path included). */
  const methodsAt = (path: string): Resource[] =>
    Object.values(resources('AWS::ApiGateway::Method')).filter(
      (method) => resourcePath(String((method.Properties.ResourceId as { Ref: string }).Ref)) === path,
    );

  return {
    resources,
    functionByName,
    functionId,
    policyStatementsOf,
    actionsOf,
    tableActionsOf,
    resourcePath,
    methodsAt,
  };
}
