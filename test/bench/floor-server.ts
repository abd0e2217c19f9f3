import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { answerFloorRequest, type FloorConfig } from './floor-work.js';

/**
 * The floor: a bare node:http server, in its own process like the local stack, making per request
 * exactly the DynamoDB calls the stack makes, and nothing else (no event building, no middlewares).
 * Started by the bench with its configuration in BENCH_FLOOR_CONFIG; prints its port when listening.
 */
const config = JSON.parse(process.env.BENCH_FLOOR_CONFIG ?? '') as FloorConfig;

// The same client settings as shared/adapters/dynamodb.ts gives the stack's handlers.
const client = new DynamoDBClient({
  endpoint: config.dynamodbEndpoint,
  region: process.env.AWS_REGION || 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

const server = createServer((request, response) => {
  const route = config.routes[request.headers.authorization ?? ''];
  const answer = route
    ? answerFloorRequest(client, config.tableName, route)
    : Promise.resolve({ status: 401, headers: {}, body: '{"code":"unauthorized"}' });
  answer
    .catch((error: unknown) => {
      console.error('floor: request failed:', error);
      return { status: 500, headers: {}, body: '{"code":"internal_error"}' };
    })
    .then(({ status, headers, body }) => {
      response.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    });
  // The request has no body; draining it lets the connection be reused.
  request.resume();
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`floor listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
