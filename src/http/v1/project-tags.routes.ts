// Placeholder: routes of this group are registered here.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';

export const projectTagRoutes =
  (_ctx: Context): FastifyPluginAsyncTypebox =>
  async () => {};
