// Every /v2 route, behind the API key check (x-api-key or Authorization: Bearer).
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import { registerAuth } from '../plugins/auth.ts';
import { exportRoutes } from './exports.routes.ts';
import { imageFileRoutes } from './image-files.routes.ts';

export const v2Routes =
  (ctx: Context): FastifyPluginAsync =>
  async (app) => {
    registerAuth(app, ctx.db, { bearer: true });
    await app.register(exportRoutes(ctx));
    await app.register(imageFileRoutes(ctx));
  };
