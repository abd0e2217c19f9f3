import { dirname, isAbsolute, join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionName } from '../../../shared/topology/routes.js';
import {
  ESM_REQUIRE_BANNER,
  functionEntry,
  LAMBDA_ALIASES,
  MAIN_FIELDS,
  NODE_TARGET,
  PROJECT_ROOT,
} from '../bundling.js';
import type { StageSettings } from '../stage.js';

export interface ServiceFunctionProps {
  /** The folder under `functions/` whose `handler.ts` is the entry point. */
  name: FunctionName;
  settings: StageSettings;
  /** Merged over the defaults; a caller's value is never dropped. */
  environment?: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
  /** Files copied into the bundle beside the handler: `from` relative to the project root, `to` to the bundle. */
  files?: readonly BundledFile[];
}

export interface BundledFile {
  from: string;
  to: string;
}

/** Shell commands that copy files into the bundle once esbuild has written it (local bundling, no Docker). */
export function copyCommands(files: readonly BundledFile[], inputDir: string, outputDir: string): string[] {
  return files.map(({ from, to }) => {
    if (
      [from, to].some((path) => isAbsolute(path) || path.split('/').includes('..') || /["'$`\\]/.test(path))
    ) {
      throw new Error(`A bundled file must be a plain relative path: ${from} -> ${to}`);
    }
    return `mkdir -p "${join(outputDir, dirname(to))}" && cp "${join(inputDir, from)}" "${join(outputDir, to)}"`;
  });
}

/** One Lambda function of the service, with the defaults every function shares set in one place. */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly name: FunctionName;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { settings } = props;
    this.name = props.name;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });

    // Our own role instead of AWSLambdaBasicExecutionRole, which may write to every log group.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: functionEntry(props.name),
      handler: 'handler',
      description: `${props.name} (${settings.stage})`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      // Well under API Gateway's 29 s integration timeout: a stuck call stops long before the client gives up.
      timeout: props.timeout ?? Duration.seconds(10),
      // CPU grows with memory; 1 GB keeps cold starts short for a bundled SDK.
      memorySize: props.memorySize ?? 1024,
      role,
      logGroup: this.logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      environment: {
        ...(settings.sourceMapsAtRuntime ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: NODE_TARGET,
        minify: true,
        sourceMap: true,
        mainFields: [...MAIN_FIELDS],
        banner: ESM_REQUIRE_BANNER,
        bundleAwsSDK: true,
        externalModules: [],
        esbuildArgs: Object.fromEntries(
          Object.entries(LAMBDA_ALIASES).map(([from, to]) => [`--alias:${from}`, to]),
        ),
        ...(props.files?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) =>
                  copyCommands(props.files ?? [], inputDir, outputDir),
              },
            }
          : {}),
      },
    });

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node 22 on purpose: the local stack, tests and bundles all target 22 (FACTS.md); moving up is a deliberate upgrade.',
    });
  }
}
