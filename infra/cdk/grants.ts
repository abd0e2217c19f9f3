import { Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { GRANTS } from '../../shared/topology/grants.js';
import { RATE_COUNTER_KEY_PREFIX } from '../../shared/topology/table.js';
import type { ServiceFunction } from './constructs/service-function.js';

/** The resources a function's grants may name; a construct passes those it has made. */
export interface GrantTargets {
  table: ITableV2;
  signingKey?: IKey;
  eventBus?: IEventBus;
  deliveryQueue?: IQueue;
}

/** Grants a function what its entry in `shared/topology/grants.ts` names, and nothing else. */
export type GrantAccess = (fn: ServiceFunction, more?: Omit<GrantTargets, 'table'>) => void;

function required<T>(target: T | undefined, what: string, fn: ServiceFunction): T {
  if (!target)
    throw new Error(`${fn.name} is granted access to the ${what}, but none was passed to grant it`);
  return target;
}

export function grantAccess(fn: ServiceFunction, targets: GrantTargets, tableIndexesFinding: string): void {
  const grants = GRANTS[fn.name];
  // The public documents function reads no data, so it gets no table permission at all.
  if (grants.table.length > 0) {
    targets.table.grant(fn.function, ...grants.table);
    Validations.of(fn).acknowledge({
      id: tableIndexesFinding,
      reason:
        "Table grants cover this table's own indexes (needed for Query on gsi1); item actions do not apply to index ARNs.",
    });
  }
  if ('rateCounters' in grants && !(grants.table as readonly string[]).includes('dynamodb:UpdateItem')) {
    // IAM compares the partition key of the item updated with the rate counters' prefix.
    fn.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [targets.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_COUNTER_KEY_PREFIX}*`] },
        },
      }),
    );
  }
  if ('eventBus' in grants) {
    const bus = required(targets.eventBus, 'event bus', fn);
    bus.grantPutEventsTo(fn.function);
    fn.function.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
  }
  if ('signingKey' in grants) {
    const key = required(targets.signingKey, 'signing-secrets key', fn);
    key.grant(fn.function, ...grants.signingKey);
    fn.function.addEnvironment('SECRETS_KMS_KEY_ID', key.keyArn);
  }
  if ('deliveryQueue' in grants) {
    required(targets.deliveryQueue, 'delivery queue', fn).grant(fn.function, ...grants.deliveryQueue);
  }
}
