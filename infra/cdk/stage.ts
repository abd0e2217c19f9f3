import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

export interface StageSettings {
  stage: string;
  isProduction: boolean;
  logRetention: RetentionDays;
  logLevel: 'DEBUG' | 'INFO';
  /** Production data outlives a stack deletion; a developer's stack is thrown away whole. */
  removalPolicy: RemovalPolicy;
  /**
   * Whether functions map stack traces through their source maps at run time
   * (`--enable-source-maps`). It costs every cold start (`npm run bench` prints how much), so
   * production goes without: its bundles still carry the maps, to read a minified trace afterwards.
   */
  sourceMapsAtRuntime: boolean;
}

/** Lowercase letters, digits and hyphens: the stage names the stack, the API stage and resource names. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

export function stageSettings(stage: string): StageSettings {
  if (!STAGE_NAME.test(stage)) {
    throw new Error(
      `Stage "${stage}" must be 1 to 20 lowercase letters, digits or hyphens, starting with a letter.`,
    );
  }
  const isProduction = stage === 'prod';
  return {
    stage,
    isProduction,
    logRetention: isProduction ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_WEEK,
    logLevel: isProduction ? 'INFO' : 'DEBUG',
    removalPolicy: isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    sourceMapsAtRuntime: !isProduction,
  };
}

export function stackName(stage: string): string {
  return `MembershipIncidentService-${stage}`;
}
