// What every request's context carries: the app's services, set once by createApp's first
// middleware, so routes and route middleware read their dependencies from the context instead
// of having them passed along at registration. Read with `c.get('services')`: hono's `c.var`
// copies every variable into a new object on each read.
import type { MiddlewareHandler } from 'hono';
import type { Services } from './services/index.js';
import { requireStore } from './services/stored-clusters.js';

export interface AppEnv {
  Variables: {
    services: Services;
  };
}

export const withServices = (services: Services): MiddlewareHandler<AppEnv> => async (c, next) => {
  c.set('services', services);
  await next();
};

/** Route middleware: a deployment without a store answers 503 before the route's query is read. */
export const storeRequired: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireStore(c.get('services').store);
  await next();
};
