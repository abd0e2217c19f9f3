import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  FLUSH_CACHE_PATH,
  localSecretKey,
  locateLocalStack,
  type RunningLocalStack,
} from '../../shared/topology/local-stack.js';

/** A command that could not be done (exit code 1), with a stable code for `--json`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'failed',
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The running local stack the commands act on, or a CliError that says how to point at it. */
export function localStack(): RunningLocalStack {
  const found = locateLocalStack();
  if ('problem' in found) throw new CliError(found.problem, 'stack_not_running');
  return found;
}

/** Where the CLI's commands act: the running local stack, or a deployed stack's table and API. */
export interface Target {
  description: string;
  /** Makes a token revocation effective at once instead of after the authorizer cache time. */
  flushAuthorizerCache(): Promise<void>;
}

async function deployedTarget(stackName: string): Promise<Target> {
  const cloudFormation = new CloudFormationClient({});
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const { TableName, RestApiId, StageName, Region, SigningKeyArn } = outputs;
  if (!TableName || !RestApiId || !StageName) {
    throw new CliError(
      `Stack ${stackName} has no TableName, RestApiId and StageName outputs: is it this service's stack?`,
    );
  }
  process.env.TABLE_NAME = TableName;
  if (Region) process.env.AWS_REGION = Region;
  if (SigningKeyArn) process.env.SECRETS_KMS_KEY_ID = SigningKeyArn;
  return {
    description: `stack ${stackName}`,
    flushAuthorizerCache: async () => {
      await new APIGatewayClient(Region ? { region: Region } : {}).send(
        new FlushStageAuthorizersCacheCommand({ restApiId: RestApiId, stageName: StageName }),
      );
    },
  };
}

function localTarget(): Target {
  const { dataDir: dir, info } = localStack();
  process.env.DYNAMODB_ENDPOINT = info.dynamodbEndpoint;
  process.env.TABLE_NAME = info.tableName;
  process.env.LOCAL_SECRET_KEY = localSecretKey(dir);
  process.env.ALLOW_PRIVATE_WEBHOOK_URLS = 'true';
  return {
    description: `local stack at ${info.baseUrl}`,
    flushAuthorizerCache: async () => {
      const response = await fetch(`${info.origin}${FLUSH_CACHE_PATH}`, { method: 'DELETE' });
      if (!response.ok)
        throw new CliError(`The local gateway refused to flush its cache (${response.status}).`);
    },
  };
}

export async function resolveTarget(stackName: string | undefined): Promise<Target> {
  return stackName ? deployedTarget(stackName) : localTarget();
}
