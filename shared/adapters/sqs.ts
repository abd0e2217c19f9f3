import { SQSClient } from '@aws-sdk/client-sqs';
import { guarded } from './access-guard.js';

/**
 * The SQS emulator (fauxqs) keys queues by the region a request is signed for, so every local
 * client signs for this one region, whatever `AWS_REGION` the developer's shell has.
 */
export const LOCAL_SQS_REGION = 'local';

/** A client for the local SQS emulator at `endpoint`, or the SDK's defaults when there is none. */
export function createSqsClient(endpoint?: string): SQSClient {
  if (!endpoint) return new SQSClient({});
  return new SQSClient({
    endpoint,
    region: LOCAL_SQS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

let client: SQSClient | undefined;

/**
 * One client per process. `SQS_ENDPOINT` is set only by the local stack and the tests, like
 * `DYNAMODB_ENDPOINT`; on AWS the SDK's defaults apply.
 */
export function sqs(): SQSClient {
  client ??= guarded(createSqsClient(process.env.SQS_ENDPOINT));
  return client;
}
