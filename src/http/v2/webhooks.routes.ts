// The team's webhooks for admins: POST/GET /v2/webhooks, GET/DELETE /v2/webhooks/:id, and
// GET /v2/webhooks/:id/deliveries, POST /v2/webhooks/:id/test (docs/webhooks.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, pingWebhook } from '../../services/webhooks.service.ts';
import { requireAdmin } from '../plugins/auth.ts';
import { IdParams, IfMatchHeaders, ListOf, ListQuery, Problem, problemResponses } from '../schemas/v2.ts';
import { NewWebhook, WebhookBody, WebhookDelivery, WebhookView } from '../schemas/v2-webhooks.ts';
import { ifMatchOf, sendTagged } from './etag.ts';
import { forgoReplay } from './idempotency.ts';
import { pageRequestOf, sendPage } from './id-cursor.ts';
import { TEAM_ROUTE } from '../plugins/project-access.ts';

export const webhookRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = ctx.db.kysely;

    app.post(
      '/webhooks',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'A new webhook of the team (admin scope); the answer is the only time its signing secret is shown',
          description: 'The URL and the addresses its host resolves to are checked as deliveries will check them. The answer is never kept for an Idempotency-Key replay.',
          body: WebhookBody,
          response: { 201: NewWebhook, ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        const created = await createWebhook(db, ctx.config, request.principal, request.body);
        // The secret is not kept for a replay: a retry makes another webhook (remove the lost one).
        await forgoReplay(ctx.db, request);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );

    app.get(
      '/webhooks',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'The team’s webhooks by id (admin scope); never their secrets',
          querystring: Type.Object(ListQuery),
          response: { 200: ListOf(WebhookView), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        return sendPage(request, reply, await listWebhooks(db, request.principal.teamId, pageRequestOf(request.query)));
      },
    );

    app.get(
      '/webhooks/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'One of the team’s webhooks, with its ETag (admin scope)',
          params: IdParams,
          response: { 200: WebhookView, 304: Type.Null({ description: 'not modified: If-None-Match names the current ETag' }), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        return sendTagged(request, reply, await getWebhook(db, request.principal.teamId, request.params.id));
      },
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'Remove one of the team’s webhooks and its deliveries, pending ones too (admin scope)',
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...problemResponses, 412: Problem },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        await deleteWebhook(db, request.principal.teamId, request.params.id, ifMatchOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'The webhook’s deliveries, newest first, with how the last attempt of each ended (admin scope)',
          params: IdParams,
          querystring: Type.Object(ListQuery),
          response: { 200: ListOf(WebhookDelivery), ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        return sendPage(request, reply, await listDeliveries(db, request.principal.teamId, request.params.id, pageRequestOf(request.query)));
      },
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { access: TEAM_ROUTE },
        schema: {
          tags: ['webhooks'],
          summary: 'Send the webhook a `webhook.test` event, as any event is sent (admin scope); 202 with the delivery',
          params: IdParams,
          response: { 202: WebhookDelivery, ...problemResponses },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        return reply.code(202).send(await pingWebhook(db, request.principal.teamId, request.params.id));
      },
    );
  };
