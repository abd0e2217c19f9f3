import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { installAccessGuard } from '../../shared/adapters/access-guard.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import { BASE_PATH } from '../../shared/config.js';
import { CORS_ENV_VAR, parseCorsAllowList } from '../../shared/topology/cors.js';
import {
  dataDir,
  localSecretKey,
  removeStackInfo,
  shellWord,
  writeStackInfo,
} from '../../shared/topology/local-stack.js';
import {
  AUTHORIZER_FUNCTION,
  DELIVERY_FUNCTION,
  type FunctionName,
  functionNames,
  RELAY_FUNCTION,
  TIMERS_FUNCTION,
} from '../../shared/topology/routes.js';
import { createLocalAccessGuard } from './access-guard.js';
import { assertJava, startDynamoDbLocal } from './dynamodb-local.js';
import { ensureTable } from './ensure-table.js';
import { startLocalEventBus } from './event-bus.js';
import { createGateway, type ProxyHandler, type TokenAuthorizer } from './gateway.js';
import { invocationScopes } from './lambda-context.js';
import { LocalStackError } from './local-stack-error.js';
import { assertPortFree } from './ports.js';
import { type ScheduledHandler, startTimerSchedule } from './schedule-poller.js';
import { startLocalSqs } from './sqs.js';
import { type SqsHandler, startSqsPoller } from './sqs-poller.js';
import { type StreamHandler, startStreamPoller } from './stream-poller.js';
import { startTtlSweeper } from './ttl-sweeper.js';

const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || '127.0.0.1';
const tableName = process.env.TABLE_NAME || 'membership-incident-service';
const eventBusName = 'membership-incident-service-local';
const dir = dataDir();

// IAM's stand-in: each function's AWS calls are checked against its grants (shared/topology/grants.ts).
const access = createLocalAccessGuard();
installAccessGuard(access.guard);

// Before any AWS SDK call: each invocation gets its own scope, as in a Lambda runtime.
const inInvocationScope = await invocationScopes();

/**
 * A function's handler, run as that function: whatever it calls is checked against its grants, and
 * each call is an invocation of its own (its log lines carry its own function name).
 */
async function loadHandler<T extends (...args: never[]) => unknown>(functionName: FunctionName): Promise<T> {
  const module = (await import(`../../functions/${functionName}/handler.ts`)) as { handler: T };
  const handler = module.handler;
  return ((...args: Parameters<T>) =>
    inInvocationScope(() => access.runAs(functionName, () => handler(...args)))) as T;
}

/** Everything started so far, stopped in reverse order: no Java or emulator is left behind. */
const stops: (() => Promise<unknown> | unknown)[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    removeStackInfo(dir);
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch {
        // Keep stopping the rest.
      }
    }
  }
  process.exit(code);
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await assertPortFree(port, host);
  assertJava();
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  let engineDeaths = 0;
  const dynamodb = await startDynamoDbLocal({
    dataDir: join(dir, 'dynamodb'),
    onUnexpectedExit: (how) => {
      engineDeaths += 1;
      void restartEngine(how);
    },
  });
  stops.push(() => dynamodb.stop());
  /**
   * The engine was killed under a running stack: meanwhile the API answers 503 and the pollers
   * back off; it comes back on the same port and data, or the stack stops with one line.
   */
  const restarts: number[] = [];
  async function restartEngine(how: string): Promise<void> {
    if (stopping) return;
    restarts.push(Date.now());
    const recent = restarts.filter((at) => Date.now() - at < 60_000).length;
    if (recent > 3) {
      console.error(`error: DynamoDB Local stopped (${how}) ${recent} times within a minute; stopping.`);
      await stopAll(1);
    }
    console.error(`DynamoDB Local stopped (${how}); restarting it on ${dynamodb.endpoint}.`);
    try {
      await dynamodb.restart();
      console.error('DynamoDB Local is back.');
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      console.error(`error: DynamoDB Local stopped (${how}) and did not restart: ${reason}`);
      await stopAll(1);
    }
  }
  const client = new DynamoDBClient({
    endpoint: dynamodb.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, tableName);
  // DynamoDB Local has no TTL: expired delivery-log entries (and other TTL'd items) are removed here.
  const ttlSweeper = startTtlSweeper({
    client,
    tableName,
    onError: (error) =>
      console.error(`TTL sweep failed (tried again later): ${String(error).split('\n')[0]}`),
  });
  stops.push(() => {
    ttlSweeper.stop();
    client.destroy();
  });

  const sqs = await startLocalSqs({ dataDir: join(dir, 'sqs') });
  stops.push(() => sqs.stop());
  const queue = createSqsClient(sqs.endpoint);
  const bus = await startLocalEventBus({
    eventBusName,
    sendToDeliveryQueue: async (body) => {
      await queue.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: body }));
    },
    // At most ten entries per PutEvents, as SendMessageBatch takes at most ten messages.
    sendBatchToDeliveryQueue: async (bodies) => {
      const { Failed = [] } = await queue.send(
        new SendMessageBatchCommand({
          QueueUrl: sqs.queueUrl,
          Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
      const failed = new Set(Failed.map((f) => f.Id));
      return bodies.map((_, index) => !failed.has(String(index)));
    },
  });
  stops.push(() => bus.stop());

  // The handlers read these as they read Lambda's environment on AWS.
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    TABLE_NAME: tableName,
    SQS_ENDPOINT: sqs.endpoint,
    DELIVERY_QUEUE_URL: sqs.queueUrl,
    EVENTBRIDGE_ENDPOINT: bus.endpoint,
    EVENT_BUS_NAME: eventBusName,
    LOCAL_SECRET_KEY: localSecretKey(dir),
    // Metrics are CloudWatch's (EMF lines in the function's log): on one machine they would only be noise.
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    // A developer receives webhooks on localhost; on AWS only public https URLs are accepted.
    // ALLOW_PRIVATE_WEBHOOK_URLS=false runs the local stack with AWS's address guard.
    ALLOW_PRIVATE_WEBHOOK_URLS: process.env.ALLOW_PRIVATE_WEBHOOK_URLS === 'false' ? 'false' : 'true',
  });

  const handlers = new Map<string, ProxyHandler>();
  for (const name of functionNames()) handlers.set(name, await loadHandler<ProxyHandler>(name));
  const server = createGateway({
    handlers,
    corsAllowList: parseCorsAllowList(process.env[CORS_ENV_VAR]),
    authorizer: await loadHandler<TokenAuthorizer>(AUTHORIZER_FUNCTION),
    // Also served as a custom domain's base path mapping, e.g. LOCAL_BASE_PATH=membership.
    ...(process.env.LOCAL_BASE_PATH ? { basePath: process.env.LOCAL_BASE_PATH } : {}),
  });
  stops.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );

  // The event source mappings: the table stream into the relay, the delivery queue into delivery.
  const streamPoller = startStreamPoller({
    endpoint: dynamodb.endpoint,
    tableName,
    checkpointFile: join(dir, 'stream-checkpoints.json'),
    handler: await loadHandler<StreamHandler>(RELAY_FUNCTION),
  });
  stops.push(() => streamPoller.stop());
  const sqsPoller = await startSqsPoller({
    endpoint: sqs.endpoint,
    queueUrl: sqs.queueUrl,
    handler: await loadHandler<SqsHandler>(DELIVERY_FUNCTION),
    functionName: DELIVERY_FUNCTION,
    inFlightFile: join(dir, 'deliveries-in-flight.json'),
    engineDeaths: () => engineDeaths,
  });
  stops.push(() => sqsPoller.stop());
  // The schedule rule: due timers (deadline alarms, file expiries) every TIMER_INTERVAL_SECONDS.
  const timers = startTimerSchedule(await loadHandler<ScheduledHandler>(TIMERS_FUNCTION));
  stops.push(() => timers.stop());

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolveListen);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const origin = `http://${host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host}:${actualPort}`;
  const baseUrl = `${origin}${BASE_PATH}`;
  writeStackInfo(dir, {
    baseUrl,
    origin,
    dynamodbEndpoint: dynamodb.endpoint,
    tableName,
    pid: process.pid,
    sqsEndpoint: sqs.endpoint,
    deliveryQueueUrl: sqs.queueUrl,
    deadLetterQueueUrl: sqs.deadLetterQueueUrl,
  });
  const mis = `${process.env.DATA_DIR ? `DATA_DIR=${shellWord(dir)} ` : ''}npx mis `;
  console.log(
    [
      `Membership and Incident Service is running (Ctrl-C stops it; data is kept in ${dir})`,
      `  API base URL: ${baseUrl}`,
      `  Console:      ${baseUrl}/docs (OpenAPI document: ${baseUrl}/openapi.json)`,
      `  DynamoDB Local: ${dynamodb.endpoint} (table ${tableName}); SQS emulator: ${sqs.endpoint}`,
      // Pasted as it is, this finds this stack whatever its DATA_DIR (the prefix picks it out among
      // several), and its answer ends with the token command, ready to paste in turn.
      `  First token, from this project's folder: ${mis}org create --name "My association"`,
      '    then the `mis token issue` command that it prints, as it is',
    ].join('\n'),
  );
}

main().catch(async (error: unknown) => {
  if (error instanceof LocalStackError) console.error(`error: ${error.message}`);
  else console.error('error: the local stack failed to start:', error);
  await stopAll(1);
});
