import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for the SDK's default credential chain in the Lambda bundles only (an esbuild alias in
 * infra/cdk/bundling.ts). Lambda always puts the function role's credentials in the environment, which
 * is the chain's first link; its other links (SSO, INI files, web identity, STS, the instance
 * metadata service) can never run there but weighed some 80 KB of every bundle and its cold start.
 */
export function defaultProvider(init?: Parameters<typeof fromEnv>[0]) {
  return fromEnv(init);
}
