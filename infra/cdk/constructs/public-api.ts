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
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BASE_PATH } from '../../../shared/config.js';
import { bearerHeaderPattern } from '../../../shared/domain/token.js';
import { problem } from '../../../shared/http/problem.js';
import {
  CORS_ALLOWED_HEADERS,
  CORS_CONTEXT_KEY,
  CORS_ENV_VAR,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  type CorsAllowList,
  parseCorsAllowList,
} from '../../../shared/topology/cors.js';
import { allowedMethods, type Route } from '../../../shared/topology/routes.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../../shared/topology/timeouts.js';
import {
  GATEWAY_PROBLEMS,
  gatewayResponseCorsHeaders,
  gatewayResponseHeaders,
  headerLiteral,
} from '../gateway-responses.js';
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

/**
 * The REST API under `/api/public/v1`, built from the route table: each route's method, a HEAD
 * beside each GET, the CORS preflight (OPTIONS) and a 405 for any other method on every resource.
 * Browser origins come from the CDK context value `corsAllowOrigins` (shared/topology/cors.ts).
 */
export class PublicApi extends Construct {
  readonly restApi: RestApi;
  readonly authorizer: TokenAuthorizer;
  readonly corsAllowList: CorsAllowList;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    const { settings } = props;
    const origins: unknown = this.node.tryGetContext(CORS_CONTEXT_KEY);
    this.corsAllowList = parseCorsAllowList(
      Array.isArray(origins) ? origins.join(',') : String(origins ?? ''),
    );

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
      const allow = allowedMethods(pathRoutes.map((r) => r.method));
      addPreflight(resource, allow, this.corsAllowList);
      addMethodNotAllowed(resource, allow, this.corsAllowList);
    }

    // The functions put the CORS headers on their own answers, from the same allow-list.
    if (this.corsAllowList.kind !== 'none') {
      for (const handler of new Set(props.handlers.values())) {
        if (handler instanceof LambdaFunction)
          handler.addEnvironment(CORS_ENV_VAR, corsEnvValue(this.corsAllowList));
      }
    }

    for (const { type, body, headers } of GATEWAY_PROBLEMS) {
      this.restApi.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(body.status),
        responseHeaders: {
          ...gatewayResponseHeaders(headers),
          ...gatewayResponseCorsHeaders(this.corsAllowList),
        },
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

  /**
   * The route's method, and for a GET a HEAD beside it on the same function and authorizer: API
   * Gateway runs only the methods a resource defines (ANY would answer HEAD with 405), and HTTP wants
   * HEAD answered as GET without a body; the function answers as for GET, and no body is sent.
   */
  private addRoute(resource: IResource, route: Route, handlers: ReadonlyMap<string, IFunction>): void {
    const handler = handlers.get(route.functionName);
    if (!handler) throw new Error(`No function for ${route.method} ${route.path} (${route.functionName})`);
    const integration = new LambdaIntegration(handler);
    const authorization =
      route.access === 'public'
        ? { authorizationType: AuthorizationType.NONE }
        : { authorizationType: AuthorizationType.CUSTOM, authorizer: this.authorizer };
    for (const httpMethod of route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]) {
      const method = resource.addMethod(httpMethod, integration, authorization);
      if (route.access === 'public') {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${httpMethod} ${route.path} is public by design (access 'public' in the route table).`,
        });
      }
    }
  }
}

/** The allow-list as the functions read it from `CORS_ALLOW_ORIGINS`. */
function corsEnvValue(list: CorsAllowList): string {
  return list.kind === 'any' ? '*' : list.kind === 'origins' ? list.origins.join(',') : '';
}

function groupByPath(routes: readonly Route[]): Map<string, Route[]> {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

/**
 * Velocity for a MOCK integration response: when the request's `Origin` is on the allow-list, the
 * headers `whenAllowed` are set (`$context.responseOverride`), as shared/topology/cors.ts decides
 * for the local gateway. Empty when the list allows every origin or none (fixed headers do then).
 */
function corsOverrideTemplate(list: CorsAllowList, whenAllowed: Record<string, string>): string {
  if (list.kind !== 'origins') return '';
  const matches = list.origins.map((origin) => `$origin.toLowerCase() == "${origin}"`).join(' || ');
  return [
    '#set($origin = $input.params().header.get("Origin"))',
    '#if("$!origin" == "")#set($origin = $input.params().header.get("origin"))#end',
    `#if("$!origin" != "" && (${matches}))`,
    '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    ...Object.entries(whenAllowed).map(
      ([name, value]) => `#set($context.responseOverride.header.${name} = "${value}")`,
    ),
    '#end',
  ].join('\n');
}

/** Request media types a MOCK accepts; a request without Content-Type counts as JSON. */
const MOCK_MEDIA_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];

/** The CORS header names a MOCK may send, declared on its method response. */
const CORS_RESPONSE_HEADERS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Methods',
  'Access-Control-Allow-Headers',
  'Access-Control-Max-Age',
  'Access-Control-Expose-Headers',
  'Vary',
];

/**
 * A MOCK that answers `status` itself before any authorizer runs, with fixed headers and, for an
 * allowed origin, the CORS headers. A MOCK answers from the status its request template yields; a
 * body passed through instead would fail as a 500, so other media types get API Gateway's 415 (NEVER).
 */
function addMock(
  resource: IResource,
  httpMethod: string,
  status: number,
  headers: Record<string, string>,
  options: { body?: string; corsTemplate: string },
) {
  const template = [options.corsTemplate, options.body ?? ''].filter(Boolean).join('\n');
  const method = resource.addMethod(
    httpMethod,
    new MockIntegration({
      requestTemplates: Object.fromEntries(
        MOCK_MEDIA_TYPES.map((type) => [type, `{"statusCode": ${status}}`]),
      ),
      passthroughBehavior: PassthroughBehavior.NEVER,
      // No selection pattern: whatever the request, this is the response.
      integrationResponses: [
        {
          statusCode: String(status),
          ...(template ? { responseTemplates: { 'application/json': template } } : {}),
          responseParameters: prefixKeys('method.response.header.', headers),
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: String(status),
          responseParameters: Object.fromEntries(
            [...new Set([...Object.keys(headers), ...CORS_RESPONSE_HEADERS])].map((name) => [
              `method.response.header.${name}`,
              false,
            ]),
          ),
        },
      ],
    },
  );
  return method;
}

/**
 * The CORS preflight, answered by API Gateway without a token (a browser sends none with it): 204
 * with `Allow` always, and the CORS headers for an origin of the allow-list.
 */
function addPreflight(resource: IResource, allow: string[], list: CorsAllowList): void {
  const cors = {
    'Access-Control-Allow-Methods': allow.join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
  const fixed: Record<string, string> = {
    Allow: allow.join(', '),
    ...(list.kind === 'any' ? { 'Access-Control-Allow-Origin': '*', ...cors } : {}),
    ...(list.kind === 'origins' ? { Vary: 'Origin' } : {}),
  };
  const method = addMock(resource, 'OPTIONS', 204, literals(fixed), {
    corsTemplate: corsOverrideTemplate(list, cors),
  });
  const reason =
    'The CORS preflight: a MOCK integration that only answers 204 with CORS headers; it reaches no function or data.';
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

/**
 * API Gateway prefers a resource's defined methods over ANY, so ANY catches exactly the wrong
 * methods. It answers 405 itself (MOCK) before any authorizer runs, naming the allowed methods.
 */
function addMethodNotAllowed(resource: IResource, allow: string[], list: CorsAllowList): void {
  const body = problem(405, 'method_not_allowed', `This resource supports ${allow.join(', ')}.`);
  const exposed = { 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', ') };
  const headers = gatewayResponseHeaders({
    Allow: allow.join(', '),
    ...(list.kind === 'any' ? { 'Access-Control-Allow-Origin': '*', ...exposed } : {}),
    ...(list.kind === 'origins' ? { Vary: 'Origin' } : {}),
  });
  const method = addMock(resource, 'ANY', 405, headers, {
    body: JSON.stringify(body),
    corsTemplate: corsOverrideTemplate(list, exposed),
  });
  const reason =
    'A MOCK integration that only answers 405 Method Not Allowed; it reaches no function or data.';
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

function literals(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, headerLiteral(value)]));
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
