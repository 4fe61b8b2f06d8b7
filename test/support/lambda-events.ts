// API Gateway v2 (HTTP API, payload format 2.0) events, as API Gateway hands them to the Lambda
// function: for the handler from source (lambda.test.ts) and from its bundle (lambda-bundle.test.ts).
import type { LambdaEvent } from 'hono/aws-lambda';

/** An API Gateway v2 (HTTP API, payload format 2.0) event for `$default` route integration. */
export function httpApiEvent(method: string, path: string, opts: { body?: string; contentType?: string; base64?: boolean; query?: string; headers?: Record<string, string> } = {}): LambdaEvent {
  // API Gateway lower-cases header names in payload format 2.0.
  const headers: Record<string, string> = { host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'user-agent': 'vitest', ...opts.headers };
  if (opts.contentType) headers['content-type'] = opts.contentType;
  const body = opts.body === undefined ? null : opts.base64 ? Buffer.from(opts.body, 'utf8').toString('base64') : opts.body;
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: opts.query ?? '',
    headers,
    body,
    isBase64Encoded: opts.base64 ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '21/Nov/2026:00:00:00 +0000',
      timeEpoch: 1795219200000,
    },
  } as LambdaEvent;
}
