// Every /v1 route, behind the API key check.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import { registerAuth } from '../plugins/auth.ts';
import { registerProjectAccess } from '../plugins/project-access.ts';
import { annotationRoutes } from './annotations.routes.ts';
import { catalogueRoutes } from './catalogue.routes.ts';
import { datasetRoutes } from './datasets.routes.ts';
import { imageRoutes } from './images.routes.ts';
import { importRoutes } from './import.routes.ts';
import { projectTagRoutes } from './project-tags.routes.ts';
import { projectRoutes } from './projects.routes.ts';
import { taskRoutes } from './tasks.routes.ts';

export const v1Routes =
  (ctx: Context): FastifyPluginAsync =>
  async (app) => {
    registerAuth(app, ctx.db);
    registerProjectAccess(app, ctx.db);
    await app.register(projectRoutes(ctx));
    await app.register(datasetRoutes(ctx));
    await app.register(annotationRoutes(ctx));
    await app.register(catalogueRoutes(ctx));
    await app.register(projectTagRoutes(ctx));
    await app.register(imageRoutes(ctx));
    await app.register(taskRoutes(ctx));
    await app.register(importRoutes(ctx));
  };
