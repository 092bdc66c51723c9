import { Duration, Validations } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Construct } from 'constructs';
import { API_BASE_PATH, type Catalog, httpHandlerModule, needsSigningKey, type RouteDef } from '#shared/catalog.ts';
import { CodeStack, type CodeStackProps, type FunctionSpec } from './code-stack.ts';
import { constructId } from './names.ts';
import type { ServiceFunction } from './service-function.ts';

export interface RoutesStackProps extends CodeStackProps {
  readonly routes: readonly RouteDef[];
  /** Given to the one stack that holds the fallback route, API Gateway's `$default`. */
  readonly fallbackRoute?: Catalog['fallbackRoute'];
}

const HTTP_FUNCTION_TIMEOUT = Duration.seconds(10);

/**
 * Some areas' routes: per route a function and, beside it, its API route, integration and invoke
 * permission (seven resources a route), attached to the API of the API stack.
 */
export class RoutesStack extends CodeStack {
  /** By route id, the fallback route's included when this stack holds it. */
  readonly routeFunctions = new Map<string, ServiceFunction>();

  private readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: RoutesStackProps) {
    super(scope, id, props);
    this.api = props.api.api;

    for (const route of props.routes) {
      this.addRoute(route.id, HttpRouteKey.with(`${API_BASE_PATH}${route.path}`, HttpMethod[route.method]), {
        module: httpHandlerModule(route.id),
        timeout: route.timeoutSeconds ? Duration.seconds(route.timeoutSeconds) : HTTP_FUNCTION_TIMEOUT,
        memoryMb: route.memoryMb,
        signingKey: needsSigningKey(route),
        sendsTo: route.sendsTo,
        uses: route.uses,
      });
    }
    if (props.fallbackRoute) {
      // The fallback answers 404 to anyone: public, and it signs nothing.
      this.addRoute(props.fallbackRoute.id, HttpRouteKey.DEFAULT, { module: httpHandlerModule(props.fallbackRoute.id), timeout: HTTP_FUNCTION_TIMEOUT });
    }
  }

  private addRoute(routeId: string, routeKey: HttpRouteKey, spec: FunctionSpec): void {
    // Every route counts refused and anonymous requests per client (the guard in shared/http/route.ts).
    const fn = this.serviceFunction(routeId, { ...spec, originSecret: true });
    this.routeFunctions.set(routeId, fn);
    const name = constructId(routeId);
    const route = new HttpRoute(this, `${name}Route`, {
      httpApi: this.api,
      routeKey,
      integration: new HttpLambdaIntegration(`${name}Integration`, fn, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 }),
    });
    Validations.of(route).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Every route authenticates in its handler, by the catalog route's auth mode: a bearer JWT (own issuer or Cognito) or an x-api-key, which no API Gateway authorizer type covers both of; public routes are public by design.",
    });
  }
}
