import 'reflect-metadata';

/**
 * `wardrik/nest`: Wardrik in a NestJS application (docs/nest.md). Loads `@nestjs/common` and
 * `@nestjs/core`, optional peer dependencies that only this entry needs.
 */
export { WardrikModule } from './wardrik-module.js';
export { WARDRIK_INBOX, WARDRIK_MCP_SERVER, WARDRIK_MODULE_OPTIONS } from './tokens.js';
export { defaultPrincipal } from './routes.js';
export type {
  WardrikModuleAsyncOptions,
  WardrikModuleOptions,
  WardrikModuleRootOptions,
  WardrikRoute,
  WardrikRoutes,
} from './options.js';
