// A project's catalogue under /v2: projects, their datasets, classes and tags.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import { classRoutes } from './classes.routes.ts';
import { datasetRoutes } from './datasets.routes.ts';
import { projectTagRoutes } from './project-tags.routes.ts';
import { projectRoutes } from './projects.routes.ts';

export const catalogRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(projectRoutes(ctx));
    await app.register(datasetRoutes(ctx));
    await app.register(classRoutes(ctx));
    await app.register(projectTagRoutes(ctx));
  };
