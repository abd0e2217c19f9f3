import { Duration, Size, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BASE_PATH } from '../../../shared/config.js';
import { bearerHeaderPattern } from '../../../shared/domain/token.js';
import { problem } from '../../../shared/http/problem.js';
import type { Route } from '../../../shared/topology/routes.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../../shared/topology/timeouts.js';
import { GATEWAY_PROBLEMS, gatewayResponseHeaders } from '../gateway-responses.js';
import type { StageSettings } from '../stage.js';

export interface PublicApiProps {
  settings: StageSettings;
  routes: readonly Route[];
  /** The function serving each `functionName` of the routes. */
  handlers: ReadonlyMap<string, IFunction>;
  authorizerFunction: IFunction;
  tokenTag: string;
  /** How long API Gateway reuses an authorizer decision; AUTHORIZER_CACHE_SECONDS unless a test changes it. */
  authorizerCacheSeconds?: number;
}

/** The REST API under `/api/public/v1`, built from the route table. */
export class PublicApi extends Construct {
  readonly restApi: RestApi;
  readonly authorizer: TokenAuthorizer;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    const { settings } = props;

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `membership-incident-service-${settings.stage}`,
      description: `Membership and Incident Service public API (${settings.stage})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Gzip for clients that accept it: the console's Swagger UI bundle is 1.7 MB uncompressed, ~0.5 MB gzipped.
      minCompressionSize: Size.kibibytes(1),
      // Stage logging needs the account-wide CloudWatch role; kept on stack deletion as other stacks may rely on it.
      cloudWatchRole: true,
      deployOptions: {
        stageName: settings.stage,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
        // Execution logs at ERROR only; data tracing would log request headers, tokens included.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
        // A safety net for the whole stage; the per-token limit is enforced in the functions.
        throttlingRateLimit: 100,
        throttlingBurstLimit: 200,
      },
    });

    this.authorizer = new TokenAuthorizer(this, 'Authorizer', {
      handler: props.authorizerFunction,
      identitySource: IdentitySource.header('Authorization'),
      // A malformed header is refused with 401 by API Gateway, without invoking (or paying for) the function.
      validationRegex: bearerHeaderPattern(props.tokenTag),
      resultsCacheTtl: Duration.seconds(props.authorizerCacheSeconds ?? AUTHORIZER_CACHE_SECONDS),
    });

    for (const [path, pathRoutes] of groupByPath(props.routes)) {
      const resource = this.restApi.root.resourceForPath(`${BASE_PATH}${path}`);
      for (const route of pathRoutes) this.addRoute(resource, route, props.handlers);
      addMethodNotAllowed(resource, pathRoutes);
    }

    for (const { type, body, headers } of GATEWAY_PROBLEMS) {
      this.restApi.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(body.status),
        responseHeaders: gatewayResponseHeaders(headers),
        templates: { 'application/json': JSON.stringify(body) },
      });
    }

    Validations.of(this.restApi).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in the functions by the zod schemas that also produce the OpenAPI document.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF: bad tokens are refused by the authorizer validation expression, requests are rate limited per token and throttled per stage.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Integrators authenticate with service-issued bearer tokens checked by a TOKEN authorizer, not Cognito users.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The AWS-managed policy made for the account-wide role API Gateway uses to write its logs.',
      },
    );
  }

  private addRoute(resource: IResource, route: Route, handlers: ReadonlyMap<string, IFunction>): void {
    const handler = handlers.get(route.functionName);
    if (!handler) throw new Error(`No function for ${route.method} ${route.path} (${route.functionName})`);
    const method = resource.addMethod(
      route.method,
      new LambdaIntegration(handler),
      route.access === 'public'
        ? { authorizationType: AuthorizationType.NONE }
        : { authorizationType: AuthorizationType.CUSTOM, authorizer: this.authorizer },
    );
    if (route.access === 'public') {
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${route.method} ${route.path} is public by design (access 'public' in the route table).`,
      });
    }
  }
}

function groupByPath(routes: readonly Route[]): Map<string, Route[]> {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

/** Request media types the 405 MOCK accepts; a request without Content-Type counts as JSON. */
const MOCK_MEDIA_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];

/**
 * API Gateway prefers a resource's defined methods over ANY, so ANY catches exactly the wrong
 * methods. It answers 405 itself (MOCK) before any authorizer runs, naming the allowed methods.
 */
function addMethodNotAllowed(resource: IResource, routes: readonly Route[]): void {
  const allow = [...new Set(routes.map((r) => r.method))].sort().join(', ');
  const body = problem(405, 'method_not_allowed', `This resource supports ${allow}.`);
  const headers = gatewayResponseHeaders({ Allow: allow });
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      // A MOCK answers from the status its request template yields; a body passed through instead would
      // fail as a 500, so other media types get API Gateway's 415 (NEVER).
      requestTemplates: Object.fromEntries(MOCK_MEDIA_TYPES.map((type) => [type, '{"statusCode": 405}'])),
      passthroughBehavior: PassthroughBehavior.NEVER,
      // No selection pattern: whatever the request, this is the response.
      integrationResponses: [
        {
          statusCode: '405',
          responseTemplates: { 'application/json': JSON.stringify(body) },
          responseParameters: prefixKeys('method.response.header.', headers),
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: '405',
          responseParameters: Object.fromEntries(
            Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
          ),
        },
      ],
    },
  );
  const reason =
    'A MOCK integration that only answers 405 Method Not Allowed; it reaches no function or data.';
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

function prefixKeys(prefix: string, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix}${key}`, value]));
}

/** JSON access log lines. No request headers are logged, so never the Authorization header. */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      path: AccessLogField.contextPath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      tokenId: AccessLogField.contextAuthorizerPrincipalId(),
      organisationId: AccessLogField.contextAuthorizer('organisationId'),
      authorizerError: AccessLogField.contextAuthorizerError(),
      errorType: AccessLogField.contextErrorResponseType(),
      errorMessage: AccessLogField.contextErrorMessage(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
}
