import type { RouteModule } from '../types.js';

/** Every route module of the API, registered under `/api` in this order. */
export const routeModules: RouteModule[] = [];
