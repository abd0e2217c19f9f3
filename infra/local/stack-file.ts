import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What a running local stack tells the operator CLI: where its gateway, DynamoDB and queues are. */
export interface LocalStackInfo {
  baseUrl: string;
  origin: string;
  dynamodbEndpoint: string;
  tableName: string;
  pid: number;
  /** The SQS emulator and the delivery queues (`mis dlq`); absent in a stack file written without them. */
  sqsEndpoint?: string;
  deliveryQueueUrl?: string;
  deadLetterQueueUrl?: string;
}

export function dataDir(): string {
  return resolve(process.env.DATA_DIR || '.local');
}

const stackFile = (dir: string) => join(dir, 'stack.json');

export function writeStackInfo(dir: string, info: LocalStackInfo): void {
  writeFileSync(stackFile(dir), `${JSON.stringify(info, null, 2)}\n`);
}

export function removeStackInfo(dir: string): void {
  rmSync(stackFile(dir), { force: true });
}

export function readStackInfo(dir: string): LocalStackInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(stackFile(dir), 'utf8')) as LocalStackInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}
