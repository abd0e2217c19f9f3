import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/cdk/stage.js';
import { serviceName, tokenTag } from '../../shared/config.js';
import { SERVICE_NAME, STAGE_VARIABLE } from '../../shared/topology/metrics.js';
import { allFunctionNames } from '../../shared/topology/routes.js';
import { type Resource, settingsOnlyTemplate, templateLookups } from '../support/template.js';

/**
 * The address guard is on wherever the service is deployed: no function may be told that private
 * webhook URLs are allowed (only the local stack does that), and the two functions that act on
 * webhook URLs get exactly the environment they need, nothing that could loosen the guard.
 */
const STAGES = ['dev', 'prod'] as const;
const templates = new Map<string, Template>();

beforeAll(() => {
  // Settings only: bundling is covered by stack.test.ts.
  for (const stage of STAGES) templates.set(stage, settingsOnlyTemplate(stage));
});

const variablesOf = (fn: Resource): Record<string, unknown> =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

describe.each(STAGES)('the %s stack', (stage) => {
  const template = () => templates.get(stage) as Template;
  const { resources, functionByName } = templateLookups(template, stage);
  const onlyId = (type: string) => {
    const ids = Object.keys(resources(type));
    expect(ids, type).toHaveLength(1);
    return ids[0];
  };

  it('sets ALLOW_PRIVATE_WEBHOOK_URLS in no function', () => {
    const functions = Object.entries(resources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(allFunctionNames().length);
    for (const [id, fn] of functions) {
      expect(Object.keys(variablesOf(fn)), id).not.toContain('ALLOW_PRIVATE_WEBHOOK_URLS');
    }
  });

  it('gives the delivery and the registration function exactly their environment', () => {
    const outputs = template().findOutputs('*');
    const shared = {
      ...(stageSettings(stage).sourceMapsAtRuntime ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      TABLE_NAME: { Ref: onlyId('AWS::DynamoDB::GlobalTable') },
      TOKEN_TAG: tokenTag(),
      SERVICE_NAME: serviceName(),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: stageSettings(stage).logLevel,
      [STAGE_VARIABLE]: stage,
    };
    const signingKeyArn = outputs.SigningKeyArn?.Value;
    expect(signingKeyArn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    expect(variablesOf(functionByName('deliver-webhook')[1])).toEqual({
      ...shared,
      DELIVERY_QUEUE_URL: outputs.DeliveryQueueUrl?.Value,
      SECRETS_KMS_KEY_ID: signingKeyArn,
    });
    expect(variablesOf(functionByName('webhook-create')[1])).toEqual({
      ...shared,
      SECRETS_KMS_KEY_ID: signingKeyArn,
    });
  });
});
