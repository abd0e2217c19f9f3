import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER, esbuildOptions, functionEntry } from '../../infra/cdk/bundling.js';
import { createServiceApp } from '../../infra/cdk/service-app.js';
import { BASE_PATH, tokenTag } from '../../shared/config.js';
import { bearerHeaderPattern } from '../../shared/domain/token.js';
import { PROBLEM_CONTENT_TYPE, WWW_AUTHENTICATE_BEARER } from '../../shared/http/problem.js';
import {
  CORS_ALLOWED_HEADERS,
  CORS_CONTEXT_KEY,
  CORS_ENV_VAR,
  CORS_EXPOSED_HEADERS,
} from '../../shared/topology/cors.js';
import {
  AUTHORIZER_FUNCTION,
  allFunctionNames,
  allowedMethods,
  functionNames,
  routes,
} from '../../shared/topology/routes.js';
import { TABLE } from '../../shared/topology/table.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../shared/topology/timeouts.js';
import {
  arnTarget,
  type Resource,
  settingsOnlyTemplate,
  synthWithoutBundling,
  templateLookups,
} from '../support/template.js';

/** Synth with bundling is the slow part (esbuild per function): one app per stage, for the whole file. */
let template: Template;
let assemblyDirectory: string;
let validationReport: { pluginReports: unknown[] };

beforeAll(() => {
  const app = new App({ context: { stage: 'dev' } });
  const stack = createServiceApp(app);
  // Throws when cdk-nag reports an error nobody acknowledged.
  const assembly = app.synth();
  assemblyDirectory = assembly.directory;
  validationReport = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'));
  template = Template.fromStack(stack);
});

const { resources, functionByName, policyStatementsOf, methodsAt } = templateLookups(() => template);

function onlyResource(type: string): [string, Resource] {
  const entries = Object.entries(resources(type));
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
}

describe('table', () => {
  it('is built from the shared table definition', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE.indexes.map((index) =>
        Match.objectLike({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ),
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      SSESpecification: { SSEEnabled: true },
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
    });
  });

  it('is deleted with a dev stack and retained with prod', () => {
    expect(onlyResource('AWS::DynamoDB::GlobalTable')[1].DeletionPolicy).toBe('Delete');
    const prod = settingsOnlyTemplate('prod');
    prod.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    prod.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    prod.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ POWERTOOLS_LOG_LEVEL: 'INFO' }) },
    });
  }, 30_000);
});

describe('functions', () => {
  it('has one Node 22 arm64 function per function name in the routes, plus the authorizer and background ones', () => {
    const names = allFunctionNames();
    expect(Object.keys(resources('AWS::Lambda::Function'))).toHaveLength(names.length);
    for (const name of names) {
      expect(functionByName(name)[1].Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        Environment: {
          Variables: {
            NODE_OPTIONS: '--enable-source-maps',
            TABLE_NAME: { Ref: onlyResource('AWS::DynamoDB::GlobalTable')[0] },
            TOKEN_TAG: tokenTag(),
            POWERTOOLS_LOG_LEVEL: 'DEBUG',
          },
        },
      });
    }
  });

  it('keeps logs for a week in dev, in explicit log groups', () => {
    const groups = Object.values(resources('AWS::Logs::LogGroup'));
    // One per function and one for API access logs.
    expect(groups).toHaveLength(allFunctionNames().length + 1);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(7);
    // Each function logs to a log group of its own, one of those above.
    const logGroups = Object.values(resources('AWS::Lambda::Function')).map(
      (fn) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
    );
    for (const id of logGroups) expect(Object.keys(resources('AWS::Logs::LogGroup'))).toContain(id);
    expect(new Set(logGroups).size).toBe(logGroups.length);
  });
});

describe('bundles', () => {
  it('are what esbuildOptions builds, byte for byte, so a benchmark measures the deployed code', async () => {
    for (const name of allFunctionNames()) {
      const [, fn] = functionByName(name);
      // The asset's zip is named after its hash; the cloud assembly keeps it unzipped as asset.<hash>.
      const zip = String((fn.Properties.Code as { S3Key: string }).S3Key);
      const deployed = readFileSync(
        join(assemblyDirectory, `asset.${zip.replace(/\.zip$/, '')}`, 'index.mjs'),
        'utf8',
      );
      const { outputFiles } = await build({
        ...esbuildOptions(functionEntry(name)),
        outfile: 'index.mjs',
        write: false,
      });
      expect(outputFiles.find((file) => file.path.endsWith('.mjs'))?.text === deployed).toBe(true);
      expect(deployed.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      // The AWS SDK is inside the bundle, not imported from the runtime.
      expect(deployed).not.toMatch(/from\s*["']@aws-sdk\//);
    }
  });
});

describe('authorizer', () => {
  it('is a cached TOKEN authorizer on the Authorization header with the bearer pattern', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: bearerHeaderPattern(tokenTag()),
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
    });
    const [, authorizer] = onlyResource('AWS::ApiGateway::Authorizer');
    expect(arnTarget(authorizer.Properties.AuthorizerUri)).toBe(functionByName(AUTHORIZER_FUNCTION)[0]);
  });

  it('may only GetItem and UpdateItem on the table', () => {
    const [, fn] = functionByName(AUTHORIZER_FUNCTION);
    const roleId = arnTarget(fn.Properties.Role);
    const role = resources('AWS::IAM::Role')[String(roleId)];
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = policyStatementsOf(AUTHORIZER_FUNCTION);
    const tableId = onlyResource('AWS::DynamoDB::GlobalTable')[0];
    const dynamodb = statements.filter((s) =>
      [s.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamodb.flatMap((s) => [s.Action].flat()).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    for (const statement of dynamodb) {
      for (const resource of [statement.Resource].flat()) expect(arnTarget(resource)).toBe(tableId);
    }
    expect(statements.flatMap((s) => [s.Action].flat())).not.toContain('*');
  });
});

describe('REST API', () => {
  it('serves every route under the base path with the right authorization', () => {
    const [authorizerId] = onlyResource('AWS::ApiGateway::Authorizer');
    for (const route of routes) {
      const method = methodsAt(`${BASE_PATH}${route.path}`).find(
        (m) => m.Properties.HttpMethod === route.method,
      );
      expect(method?.Properties).toMatchObject(
        route.access === 'public'
          ? { AuthorizationType: 'NONE' }
          : { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } },
      );
      expect(arnTarget(method?.Properties.Integration)).toBe(functionByName(route.functionName)[0]);
    }
  });

  it('answers a wrong method with 405 and Allow, without authorization', () => {
    const any = methodsAt(`${BASE_PATH}/ping`).find((m) => m.Properties.HttpMethod === 'ANY');
    expect(any?.Properties).toMatchObject({
      AuthorizationType: 'NONE',
      Integration: {
        Type: 'MOCK',
        IntegrationResponses: [
          {
            StatusCode: '405',
            ResponseParameters: {
              'method.response.header.Allow': "'GET, HEAD, OPTIONS'",
              'method.response.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
            },
          },
        ],
      },
    });
    const integration = any?.Properties.Integration as {
      IntegrationResponses: { ResponseTemplates: Record<string, string> }[];
    };
    const body = JSON.parse(
      String(integration.IntegrationResponses[0]?.ResponseTemplates['application/json']),
    );
    expect(body).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed' });
    const anyMethods = Object.values(resources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'ANY',
    );
    expect(anyMethods.length).toBe(new Set(routes.map((r) => r.path)).size);
    for (const method of anyMethods) expect(method.Properties.AuthorizationType).toBe('NONE');
  });

  it('answers HEAD beside every GET, on the same function and with the same authorization', () => {
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const methods = methodsAt(`${BASE_PATH}${route.path}`);
      const get = methods.find((m) => m.Properties.HttpMethod === 'GET');
      const head = methods.find((m) => m.Properties.HttpMethod === 'HEAD');
      expect(head?.Properties, route.path).toMatchObject({
        AuthorizationType: get?.Properties.AuthorizationType,
        ...(get?.Properties.AuthorizerId ? { AuthorizerId: get.Properties.AuthorizerId } : {}),
        Integration: { Type: 'AWS_PROXY' },
      });
      expect(arnTarget(head?.Properties.Integration)).toBe(functionByName(route.functionName)[0]);
    }
    const heads = Object.values(resources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'HEAD',
    );
    expect(heads).toHaveLength(routes.filter((r) => r.method === 'GET').length);
  });

  it('answers the CORS preflight on every resource itself, without a token, with Allow', () => {
    for (const path of new Set(routes.map((r) => r.path))) {
      const options = methodsAt(`${BASE_PATH}${path}`).find((m) => m.Properties.HttpMethod === 'OPTIONS');
      const allow = allowedMethods(routes.filter((r) => r.path === path).map((r) => r.method)).join(', ');
      expect(options?.Properties, path).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          IntegrationResponses: [
            { StatusCode: '204', ResponseParameters: { 'method.response.header.Allow': `'${allow}'` } },
          ],
        },
      });
      // No origin is allowed unless the deployment names one (context corsAllowOrigins).
      expect(JSON.stringify(options?.Properties)).not.toContain("Access-Control-Allow-Origin'");
    }
  });

  it('names its stage after the deployment stage, logs JSON without headers, never traces data', () => {
    const [, stage] = onlyResource('AWS::ApiGateway::Stage');
    expect(stage.Properties).toMatchObject({ StageName: 'dev', TracingEnabled: true });
    expect(stage.Properties.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        DataTraceEnabled: false,
        MetricsEnabled: true,
      }),
    ]);
    const format = String((stage.Properties.AccessLogSetting as { Format: string }).Format);
    expect(JSON.parse(format)).toHaveProperty('requestId', '$context.requestId');
    expect(format.toLowerCase()).not.toContain('authorization');
    expect(format).not.toContain('requestOverride');
  });
});

describe('gateway responses', () => {
  const gatewayResponse = (type: string) =>
    Object.values(resources('AWS::ApiGateway::GatewayResponse')).find(
      (r) => r.Properties.ResponseType === type,
    )?.Properties as {
      StatusCode: string;
      ResponseParameters: Record<string, string>;
      ResponseTemplates: Record<string, string>;
    };

  it('answers 401 with WWW-Authenticate and a problem body', () => {
    const unauthorized = gatewayResponse('UNAUTHORIZED');
    expect(unauthorized.StatusCode).toBe('401');
    expect(unauthorized.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe(
      `'${WWW_AUTHENTICATE_BEARER}'`,
    );
    expect(JSON.parse(String(unauthorized.ResponseTemplates['application/json']))).toEqual({
      type: 'urn:problem:unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
      code: 'unauthorized',
    });
  });

  it('answers an unknown path with 404 not_found', () => {
    const missing = gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    expect(missing.StatusCode).toBe('404');
    expect(JSON.parse(String(missing.ResponseTemplates['application/json']))).toMatchObject({
      code: 'not_found',
    });
  });

  it('sends problem+json whose status is the status sent, and no error text on 5xx', () => {
    const all = Object.values(resources('AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties);
    expect(all.map((r) => r.ResponseType)).toEqual(
      expect.arrayContaining([
        'THROTTLED',
        'ACCESS_DENIED',
        'REQUEST_TOO_LARGE',
        'INTEGRATION_TIMEOUT',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
      ]),
    );
    for (const response of all) {
      const params = response.ResponseParameters as Record<string, string>;
      expect(params['gatewayresponse.header.Content-Type']).toBe(`'${PROBLEM_CONTENT_TYPE}'`);
      const template = String((response.ResponseTemplates as Record<string, string>)['application/json']);
      expect(JSON.parse(template).status).toBe(Number(response.StatusCode));
      if (Number(response.StatusCode) >= 500) expect(template).not.toContain('$context');
    }
    expect(gatewayResponse('THROTTLED').StatusCode).toBe('429');
    expect(
      JSON.parse(String(gatewayResponse('DEFAULT_5XX').ResponseTemplates['application/json'])).code,
    ).toBe('internal_error');
  });
});

describe('CORS', () => {
  const app = 'https://app.example.org';
  const admin = 'https://admin.example.org';
  /** The stack as `cdk deploy -c corsAllowOrigins=…` builds it (settings only: no bundling). */
  function withOrigins(origins: string) {
    const cdkApp = new App({
      context: { stage: 'dev', 'aws:cdk:bundling-stacks': [], [CORS_CONTEXT_KEY]: origins },
    });
    const corsTemplate = Template.fromStack(createServiceApp(cdkApp));
    return { template: corsTemplate, ...templateLookups(() => corsTemplate) };
  }
  const gatewayResponses = (t: Template) =>
    Object.values(t.findResources('AWS::ApiGateway::GatewayResponse')).map(
      (r) => (r as Resource).Properties.ResponseParameters as Record<string, string>,
    );

  it('lets no origin read what API Gateway answers itself unless the deployment names one', () => {
    for (const parameters of gatewayResponses(template)) {
      expect(parameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBeUndefined();
    }
    for (const name of allFunctionNames()) {
      const variables = (
        functionByName(name)[1].Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables[CORS_ENV_VAR], name).toBeUndefined();
    }
  });

  it("lets the named origins read every answer: the authorizer's 401 and 403 too, and the functions' own", () => {
    const several = withOrigins(`${app},${admin}`);
    for (const parameters of gatewayResponses(several.template)) {
      // A gateway response cannot choose among several origins: it names the caller's.
      expect(parameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
        'method.request.header.Origin',
      );
      expect(parameters['gatewayresponse.header.Access-Control-Expose-Headers']).toBe(
        `'${CORS_EXPOSED_HEADERS.join(', ')}'`,
      );
    }
    for (const name of functionNames()) {
      const variables = (
        several.functionByName(name)[1].Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables[CORS_ENV_VAR], name).toBe(`${app},${admin}`);
    }
    const one = withOrigins(app);
    for (const parameters of gatewayResponses(one.template)) {
      expect(parameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(`'${app}'`);
    }
  });

  it('answers a preflight and a 405 with the origin only when it is on the list', () => {
    const several = withOrigins(`${app},${admin}`);
    for (const httpMethod of ['OPTIONS', 'ANY']) {
      const method = several
        .methodsAt(`${BASE_PATH}/incidents`)
        .find((m) => m.Properties.HttpMethod === httpMethod);
      const integration = method?.Properties.Integration as
        | { IntegrationResponses: { ResponseTemplates: Record<string, string> }[] }
        | undefined;
      const response = integration?.IntegrationResponses[0];
      const template = String(response?.ResponseTemplates['application/json']);
      expect(template, httpMethod).toContain(`$origin.toLowerCase() == "${app}"`);
      expect(template, httpMethod).toContain(`$origin.toLowerCase() == "${admin}"`);
      expect(template, httpMethod).toContain(
        '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
      );
    }
    const any = withOrigins('*')
      .methodsAt(`${BASE_PATH}/ping`)
      .find((m) => m.Properties.HttpMethod === 'OPTIONS');
    expect(any?.Properties).toMatchObject({
      Integration: {
        IntegrationResponses: [
          {
            ResponseParameters: {
              'method.response.header.Access-Control-Allow-Origin': "'*'",
              'method.response.header.Access-Control-Allow-Headers': `'${CORS_ALLOWED_HEADERS.join(', ')}'`,
            },
          },
        ],
      },
    });
  });
});

describe('outputs', () => {
  it('exports what the operator CLI reads', () => {
    const outputs = template.findOutputs('*');
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['ApiBaseUrl', 'TableName', 'RestApiId', 'StageName', 'Region']),
    );
    const url = (outputs.ApiBaseUrl?.Value as { 'Fn::Join': [string, unknown[]] } | undefined)?.[
      'Fn::Join'
    ][1];
    expect(url?.at(-1)).toBe(BASE_PATH);
    expect(outputs.TableName?.Value).toEqual({ Ref: onlyResource('AWS::DynamoDB::GlobalTable')[0] });
    expect(outputs.RestApiId?.Value).toEqual({ Ref: onlyResource('AWS::ApiGateway::RestApi')[0] });
    expect(outputs.StageName?.Value).toEqual({ Ref: onlyResource('AWS::ApiGateway::Stage')[0] });
    expect(outputs.Region?.Value).toEqual({ Ref: 'AWS::Region' });
  });
});

describe('cdk-nag', () => {
  it('leaves no unacknowledged finding', () => {
    expect(validationReport.pluginReports).toEqual([]);
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    const { app, stack } = synthWithoutBundling('dev');
    const role = new Role(stack, 'Careless', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:*'], resources: ['*'] }));
    expect(() => app.synth()).toThrow('AwsSolutions-IAM5[Action::dynamodb:*]');
  }, 30_000);
});
