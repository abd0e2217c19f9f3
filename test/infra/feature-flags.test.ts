import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { App, FeatureFlags } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { APIGATEWAY_AUTHORIZER_CHANGE_DEPLOYMENT_LOGICAL_ID } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/cdk/bundling.js';
import { createServiceApp, type ServiceOverrides } from '../../infra/cdk/service-app.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../shared/topology/timeouts.js';

const recommended = createRequire(import.meta.url)('aws-cdk-lib/recommended-feature-flags.json') as Record<
  string,
  unknown
>;
const cdkJsonContext = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

/** The stack as the infra tests build it: in-process, bundling skipped. */
function serviceTemplate(overrides: ServiceOverrides = {}): {
  stack: ReturnType<typeof createServiceApp>;
  template: Template;
} {
  const app = new App({ context: { stage: 'dev', 'aws:cdk:bundling-stacks': [] } });
  const stack = createServiceApp(app, overrides);
  return { stack, template: Template.fromStack(stack) };
}

function deploymentOf(template: Template): string {
  const ids = Object.keys(template.findResources('AWS::ApiGateway::Deployment'));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

describe('feature flags', () => {
  it('cdk.json sets every flag the installed aws-cdk-lib recommends, at its recommended value (as cdk init does)', () => {
    const { stage, ...flags } = cdkJsonContext;
    expect(stage).toBe('dev');
    expect(flags).toEqual(recommended);
  });

  it('are the ones an app built in-process sees too, so that the tests check what cdk synth makes', () => {
    const { stack } = serviceTemplate();
    for (const [flag, value] of Object.entries(recommended)) {
      expect(stack.node.tryGetContext(flag), flag).toEqual(value);
    }
    expect(FeatureFlags.of(stack).isEnabled(APIGATEWAY_AUTHORIZER_CHANGE_DEPLOYMENT_LOGICAL_ID)).toBe(true);
  });

  it('leave a value given on the command line (-c) alone', () => {
    const app = new App({
      context: {
        stage: 'dev',
        'aws:cdk:bundling-stacks': [],
        [APIGATEWAY_AUTHORIZER_CHANGE_DEPLOYMENT_LOGICAL_ID]: false,
      },
    });
    const stack = createServiceApp(app);
    expect(FeatureFlags.of(stack).isEnabled(APIGATEWAY_AUTHORIZER_CHANGE_DEPLOYMENT_LOGICAL_ID)).toBe(false);
  });
});

describe('an authorizer change (fault 3: it must reach the live stage)', () => {
  it('gets a new API Gateway deployment, which the stage then points at', () => {
    const before = serviceTemplate().template;
    const after = serviceTemplate({ authorizerCacheSeconds: AUTHORIZER_CACHE_SECONDS + 240 }).template;
    after.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS + 240,
    });
    // CloudFormation creates a Deployment (a snapshot of the API) only when its logical id changes.
    expect(deploymentOf(after)).not.toBe(deploymentOf(before));
    after.hasResourceProperties('AWS::ApiGateway::Stage', { DeploymentId: { Ref: deploymentOf(after) } });
  }, 60_000);

  it('and nothing else does: the same stack twice keeps its deployment', () => {
    expect(deploymentOf(serviceTemplate().template)).toBe(
      deploymentOf(serviceTemplate({ authorizerCacheSeconds: AUTHORIZER_CACHE_SECONDS }).template),
    );
  }, 60_000);
});
