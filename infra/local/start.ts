import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BASE_PATH } from '../../shared/config.js';
import { AUTHORIZER_FUNCTION, functionNames } from '../../shared/routes.js';
import { assertJava, startDynamoDbLocal } from './dynamodb-local.js';
import { ensureTable } from './ensure-table.js';
import { createGateway, type ProxyHandler, type TokenAuthorizer } from './gateway.js';
import { LocalStackError } from './local-stack-error.js';
import { assertPortFree } from './ports.js';
import { localSecretKey } from './secret-key.js';
import { dataDir, removeStackInfo, writeStackInfo } from './stack-file.js';

const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || '127.0.0.1';
const tableName = process.env.TABLE_NAME || 'membership-incident-service';
const dir = dataDir();

async function loadHandler<T>(functionName: string): Promise<T> {
  const module = (await import(`../../functions/${functionName}/handler.ts`)) as { handler: T };
  return module.handler;
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await assertPortFree(port, host);
  assertJava();

  const dynamodb = await startDynamoDbLocal({ dataDir: join(dir, 'dynamodb') });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    removeStackInfo(dir);
    server.closeAllConnections();
    server.close();
    await dynamodb.stop();
    process.exit(code);
  };

  // The handlers read these when they first touch DynamoDB, exactly as they read Lambda's environment.
  process.env.DYNAMODB_ENDPOINT = dynamodb.endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.LOCAL_SECRET_KEY = localSecretKey(dir);
  // A developer receives webhooks on localhost; on AWS only public https URLs are accepted.
  process.env.ALLOW_PRIVATE_WEBHOOK_URLS = 'true';
  const client = new DynamoDBClient({
    endpoint: dynamodb.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, tableName);
  client.destroy();

  const handlers: Record<string, ProxyHandler> = {};
  for (const name of functionNames()) handlers[name] = await loadHandler<ProxyHandler>(name);
  const authorizer = await loadHandler<TokenAuthorizer>(AUTHORIZER_FUNCTION);
  const server = createGateway({ handlers, authorizer });
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolveListen);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const origin = `http://${host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host}:${actualPort}`;
  const baseUrl = `${origin}${BASE_PATH}`;
  writeStackInfo(dir, { baseUrl, origin, dynamodbEndpoint: dynamodb.endpoint, tableName, pid: process.pid });
  console.log(
    [
      `Membership and Incident Service is running (Ctrl-C stops it; data is kept in ${dir})`,
      `  API base URL: ${baseUrl}`,
      `  DynamoDB Local: ${dynamodb.endpoint} (table ${tableName})`,
      '  First token: npx mis org create --name "My association"  then  npx mis token issue --org <id> --scopes read,write',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  if (error instanceof LocalStackError) {
    console.error(`error: ${error.message}`);
  } else {
    console.error('error: the local stack failed to start:', error);
  }
  process.exit(1);
});
