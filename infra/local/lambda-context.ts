import { randomUUID } from 'node:crypto';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/** A Lambda context of the shape the runtime passes, for handlers invoked in-process. */
export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Runs one invocation in its own scope. */
export type InvocationScope = <T>(fn: () => T) => T;

/**
 * The local stack runs every function in one process, many invocations at once, as a Lambda
 * execution environment with several concurrent invocations does. So it does what that runtime
 * does: a scope per invocation (the runtime's InvokeStore, which Powertools reads when
 * `AWS_LAMBDA_MAX_CONCURRENCY` is set), so that what a function's logger holds for one invocation
 * (its function name, request id, keys) is never seen by another function's. Call it before any
 * AWS SDK call: the SDK takes the first store it finds.
 */
export async function invocationScopes(): Promise<InvocationScope> {
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ||= '1000';
  const store = await InvokeStore.getInstanceAsync(true);
  return (fn) => store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: randomUUID() }, fn);
}
