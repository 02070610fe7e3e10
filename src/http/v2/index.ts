// Every /v2 route, behind the API key check (x-api-key, Authorization: Bearer, or the web interface's
// session cookie), answering errors as problem details and honouring Idempotency-Key on creates. One
// line a resource group.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import { registerAuth } from '../plugins/auth.ts';
import { registerProjectAccess } from '../plugins/project-access.ts';
import { accountRoutes } from './account.routes.ts';
import { auditRoutes } from './audit.routes.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { exportRoutes } from './exports.routes.ts';
import { imageAnnotationRoutes } from './image-annotation.routes.ts';
import { annotationRevisionRoutes } from './annotation-revisions.routes.ts';
import { imageFileRoutes } from './image-files.routes.ts';
import { imageOverlayRoutes } from './image-overlays.routes.ts';
import { imageRoutes } from './images.routes.ts';
import { importRoutes } from './imports.routes.ts';
import { jobRoutes } from './jobs.routes.ts';
import { qualityRoutes } from './quality.routes.ts';
import { keyRoutes } from './keys.routes.ts';
import { modelRoutes } from './models.routes.ts';
import { nearDuplicateRoutes } from './near-duplicates.routes.ts';
import { segmentRoutes } from './segment.routes.ts';
import { predictionRoutes } from './predictions.routes.ts';
import { projectMemberRoutes } from './project-members.routes.ts';
import { projectStatsRoutes } from './project-stats.routes.ts';
import { sessionRoutes } from './session.routes.ts';
import { singleSignOnRoutes } from './single-sign-on.routes.ts';
import { taskRoutes } from './tasks.routes.ts';
import { userRoutes } from './users.routes.ts';
import { versionRoutes } from './versions.routes.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { registerIdempotency } from './idempotency.ts';
import { registerProblems } from './problem.ts';

export const v2Routes =
  (ctx: Context): FastifyPluginAsync =>
  async (app) => {
    registerProblems(app);
    registerAuth(app, ctx.db, { bearer: true, sessions: true });
    registerProjectAccess(app, ctx.db);
    registerIdempotency(app, ctx.db);
    await app.register(exportRoutes(ctx));
    await app.register(catalogRoutes(ctx));
    await app.register(imageRoutes(ctx));
    await app.register(imageFileRoutes(ctx));
    await app.register(imageAnnotationRoutes(ctx));
    await app.register(annotationRevisionRoutes(ctx));
    await app.register(imageOverlayRoutes(ctx));
    await app.register(taskRoutes(ctx));
    await app.register(importRoutes(ctx));
    await app.register(keyRoutes(ctx));
    await app.register(modelRoutes(ctx));
    await app.register(sessionRoutes(ctx));
    await app.register(singleSignOnRoutes(ctx));
    await app.register(userRoutes(ctx));
    await app.register(accountRoutes(ctx));
    await app.register(webhookRoutes(ctx));
    await app.register(auditRoutes(ctx));
    await app.register(nearDuplicateRoutes(ctx));
    await app.register(projectStatsRoutes(ctx));
    await app.register(projectMemberRoutes(ctx));
    await app.register(versionRoutes(ctx));
    await app.register(segmentRoutes(ctx));
    await app.register(predictionRoutes(ctx));
    await app.register(jobRoutes(ctx));
    await app.register(qualityRoutes(ctx));
  };
