import { AsyncLocalStorage } from 'node:async_hooks';
import type { AccessGuard, GuardableClient } from '../../shared/adapters/access-guard.js';
import { type FunctionGrants, GRANTS } from '../../shared/topology/grants.js';
import type { FunctionName } from '../../shared/topology/routes.js';
import { RATE_COUNTER_KEY_PREFIX, TABLE } from '../../shared/topology/table.js';

/** One action a call needs, with the partition key it touches where a condition may narrow the grant. */
interface NeededAction {
  action: string;
  partitionKey?: string;
}

type Input = Record<string, unknown>;

function partitionKeyOf(key: unknown): string | undefined {
  const value = (key as Record<string, { S?: string }> | undefined)?.[TABLE.partitionKey];
  return value?.S;
}

const TRANSACT_ACTIONS = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
} as const;

/**
 * What IAM checks for a command: its own action, or for a transaction one action per item (AWS
 * authorizes TransactWriteItems item by item). Commands not listed need the action of their name.
 */
export function actionsFor(service: string, command: string, input: Input): NeededAction[] {
  const name = command.replace(/Command$/, '');
  if (service !== 'dynamodb') return [{ action: `${service}:${name}` }];
  if (name === 'TransactWriteItems') {
    return ((input.TransactItems as Input[] | undefined) ?? []).map((item) => {
      const [kind, body] = Object.entries(item)[0] as [keyof typeof TRANSACT_ACTIONS, Input];
      const partitionKey = partitionKeyOf(body.Key ?? body.Item);
      return { action: TRANSACT_ACTIONS[kind], ...(partitionKey ? { partitionKey } : {}) };
    });
  }
  if (name === 'TransactGetItems') return [{ action: 'dynamodb:GetItem' }];
  const partitionKey = partitionKeyOf(input.Key ?? input.Item);
  return [{ action: `dynamodb:${name}`, ...(partitionKey ? { partitionKey } : {}) }];
}

/** Whether a function's grants allow one action, applying the rate counters' LeadingKeys condition. */
export function isAllowed(grants: FunctionGrants, needed: NeededAction): boolean {
  const { action, partitionKey } = needed;
  const [service] = action.split(':');
  if (service === 'dynamodb') {
    if ((grants.table as readonly string[]).includes(action)) return true;
    return (
      action === 'dynamodb:UpdateItem' &&
      grants.rateCounters === true &&
      partitionKey?.startsWith(RATE_COUNTER_KEY_PREFIX) === true
    );
  }
  const granted: readonly string[] =
    service === 'kms'
      ? (grants.signingKey ?? [])
      : service === 'events'
        ? (grants.eventBus ?? [])
        : service === 'sqs'
          ? (grants.deliveryQueue ?? [])
          : [];
  return granted.includes(action);
}

/** What the SDK throws when IAM refuses a call. */
export class AccessDeniedException extends Error {
  override name = 'AccessDeniedException';
  readonly $fault = 'client';
  readonly $metadata = { httpStatusCode: 400 };
  constructor(functionName: string, action: string) {
    super(
      `User: arn:aws:sts::000000000000:assumed-role/${functionName}/${functionName} is not authorized to perform: ${action} because no identity-based policy allows the ${action} action (shared/topology/grants.ts)`,
    );
  }
}

const SERVICES: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  EventBridgeClient: 'events',
  KMSClient: 'kms',
};

/**
 * The local stack's stand-in for IAM: a call made while a function runs must be in that function's
 * grants, or it fails as AccessDenied would on AWS. Calls made outside any function (the local
 * stack itself, the CLI) are not checked.
 */
export function createLocalAccessGuard() {
  const running = new AsyncLocalStorage<FunctionName>();

  const enforce = (needed: NeededAction[]) => {
    const functionName = running.getStore();
    if (!functionName) return;
    for (const one of needed) {
      if (!isAllowed(GRANTS[functionName], one)) throw new AccessDeniedException(functionName, one.action);
    }
  };

  const guard: AccessGuard = {
    guardClient(client: GuardableClient) {
      const stack = client.middlewareStack as unknown as {
        add(
          middleware: (
            next: (args: { input: Input }) => Promise<unknown>,
            context: { clientName?: string; commandName?: string },
          ) => (args: { input: Input }) => Promise<unknown>,
          options: { step: 'initialize'; name: string },
        ): void;
      };
      stack.add(
        (next, context) => async (args) => {
          const service = SERVICES[context.clientName ?? ''];
          if (service && context.commandName) enforce(actionsFor(service, context.commandName, args.input));
          return next(args);
        },
        { step: 'initialize', name: 'localAccessGuard' },
      );
    },
    check(action) {
      enforce([{ action }]);
    },
  };

  return {
    guard,
    /** Runs one invocation of a function as that function: its calls are checked against its grants. */
    runAs<T>(functionName: FunctionName, invoke: () => T): T {
      return running.run(functionName, invoke);
    },
  };
}
