import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  dataDir,
  FLUSH_CACHE_PATH,
  localSecretKey,
  readStackInfo,
} from '../../shared/topology/local-stack.js';

export class CliError extends Error {}

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
  const dir = dataDir();
  const info = readStackInfo(dir);
  if (!info) {
    throw new CliError(
      `The local stack is not running (no live ${dir}/stack.json): start it with \`npm start\`, or pass --stack <name> for a deployed stack.`,
    );
  }
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
