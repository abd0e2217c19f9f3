import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './bundling.js';
import { ServiceStack, type ServiceStackProps } from './stack.js';
import { stackName, stageSettings } from './stage.js';

/** What a test may change in the stack; everything else comes from the stage. */
export type ServiceOverrides = Pick<ServiceStackProps, 'authorizerCacheSeconds'>;

/**
 * The stack for the stage given with `-c stage=…`, checked by cdk-nag: any finding not acknowledged
 * with a reason fails the synth. The CDK app and the infra tests both build through here.
 */
export function createServiceApp(app: App, overrides: ServiceOverrides = {}): ServiceStack {
  applyProjectContext(app);
  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  const settings = stageSettings(stage);
  // cdk-nag 3 is a validation plugin; registering it as an aspect crashes (FACTS.md).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return new ServiceStack(app, stackName(stage), {
    settings,
    ...overrides,
    // Environment-agnostic: nothing is looked up at synth, so one template deploys to any account and region.
    description: `Membership and Incident Service (${stage})`,
    tags: { service: 'membership-incident-service', stage },
  });
}

/**
 * cdk.json's context (the default stage and the feature flags `cdk init` writes) for an app built
 * in-process, as the infra tests do: `cdk synth` passes it to the app itself, and a test must see
 * the template that `cdk synth` makes. A value the app was given (`-c`, or a test's) wins.
 */
function applyProjectContext(app: App): void {
  const { context = {} } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  for (const [key, value] of Object.entries(context)) {
    if (app.node.tryGetContext(key) === undefined) app.node.setContext(key, value);
  }
}
