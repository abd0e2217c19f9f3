import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './stack.js';
import { stackName, stageSettings } from './stage.js';

/**
 * The stack for the stage given with `-c stage=…`, checked by cdk-nag: any finding not acknowledged
 * with a reason fails the synth. The CDK app and the infra tests both build through here.
 */
export function createServiceApp(app: App): ServiceStack {
  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  const settings = stageSettings(stage);
  // cdk-nag 3 is a validation plugin; registering it as an aspect crashes (FACTS.md).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return new ServiceStack(app, stackName(stage), {
    settings,
    // Environment-agnostic: nothing is looked up at synth, so one template deploys to any account and region.
    description: `Membership and Incident Service (${stage})`,
    tags: { service: 'membership-incident-service', stage },
  });
}
