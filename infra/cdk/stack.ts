import { type CfnElement, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { BASE_PATH, serviceName, tokenTag } from '../../shared/config.js';
import { SERVICE_NAME, STAGE_VARIABLE } from '../../shared/topology/metrics.js';
import {
  AUTHORIZER_FUNCTION,
  type FunctionName,
  functionNames,
  routes,
} from '../../shared/topology/routes.js';
import { TABLE } from '../../shared/topology/table.js';
import { BUNDLED_FILES } from './bundled-files.js';
import { PublicApi } from './constructs/public-api.js';
import { ServiceAlarms } from './constructs/service-alarms.js';
import { ServiceFunction } from './constructs/service-function.js';
import { TimerSchedule } from './constructs/timer-schedule.js';
import { WebhookPipeline } from './constructs/webhook-pipeline.js';
import { type GrantAccess, grantAccess } from './grants.js';
import type { StageSettings } from './stage.js';

export interface ServiceStackProps extends StackProps {
  settings: StageSettings;
  /** See PublicApiProps; only a test sets it, to change the authorizer. */
  authorizerCacheSeconds?: number;
}

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const tag = tokenTag();

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: TABLE.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      })),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS-managed key encrypts at rest and logs its use in CloudTrail, without a key to pay for or a
      // kms:Decrypt grant in every function's policy; a customer key would add value only for crypto-shredding.
      encryption: TableEncryptionV2.awsManagedKey(),
      timeToLiveAttribute: TABLE.ttlAttribute,
      dynamoStream: StreamViewType[TABLE.streamView],
      deletionProtection: settings.isProduction,
      removalPolicy: settings.removalPolicy,
    });

    const environment = {
      TABLE_NAME: table.tableName,
      TOKEN_TAG: tag,
      SERVICE_NAME: serviceName(),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: settings.logLevel,
      [STAGE_VARIABLE]: settings.stage,
    };
    const tableIndexes = `Resource::<${this.getLogicalId(table.node.defaultChild as CfnElement)}.Arn>/index/*`;

    let signingKey: IKey | undefined;
    // The owner's sends (test, redeliver, recover) put deliveries on the pipeline's bus, as the relay does.
    let eventBus: IEventBus | undefined;
    const grant: GrantAccess = (fn, more = {}) =>
      grantAccess(fn, { table, signingKey, eventBus, ...more }, `AwsSolutions-IAM5[${tableIndexes}]`);
    const createFunction = (name: FunctionName, constructId: string): IFunction => {
      const files = BUNDLED_FILES[name];
      const serviceFunction = new ServiceFunction(this, constructId, {
        name,
        settings,
        environment,
        ...(files.length > 0 ? { files } : {}),
      });
      grant(serviceFunction);
      return serviceFunction.function;
    };

    const webhooks = new WebhookPipeline(this, 'Webhooks', { settings, table, environment, grant });
    signingKey = webhooks.signingKey;
    eventBus = webhooks.bus;
    new TimerSchedule(this, 'Timers', { settings, environment, grant });

    const authorizerFunction = createFunction(AUTHORIZER_FUNCTION, 'AuthorizerFunction');
    // One function per distinct functionName: a route added to the table gets its function here.
    const handlers = new Map(
      functionNames().map((name) => [name, createFunction(name, `${pascalCase(name)}Function`)]),
    );

    const api = new PublicApi(this, 'PublicApi', {
      settings,
      routes,
      handlers,
      authorizerFunction,
      tokenTag: tag,
      authorizerCacheSeconds: props.authorizerCacheSeconds,
    });

    const alarms = new ServiceAlarms(this, 'Alarms', {
      settings,
      deliveryDeadLetterQueue: webhooks.deadLetterQueue,
      ruleDeadLetterQueue: webhooks.ruleDeadLetterQueue,
      relayFunction: webhooks.relay.function,
      apiStage: api.restApi.deploymentStage,
    });

    // The operator CLI reads these by id.
    new CfnOutput(this, 'ApiBaseUrl', { value: api.restApi.urlForPath(BASE_PATH) });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'RestApiId', { value: api.restApi.restApiId });
    new CfnOutput(this, 'StageName', { value: api.restApi.deploymentStage.stageName });
    new CfnOutput(this, 'Region', { value: this.region });
    new CfnOutput(this, 'DeliveryQueueUrl', { value: webhooks.queue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: webhooks.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'RuleDeadLetterQueueUrl', { value: webhooks.ruleDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: alarms.dashboard.dashboardName });
    new CfnOutput(this, 'SigningKeyArn', { value: webhooks.signingKey.keyArn });
  }
}

function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
