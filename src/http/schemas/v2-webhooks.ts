// Schemas of API v2's /webhooks and their deliveries.
import { Type } from 'typebox';
import { WEBHOOK_EVENTS } from '../../services/webhook-events.ts';
import { MAX_URL_LENGTH } from '../../webhooks/target-policy.ts';
import { Timestamp } from './common.ts';

export const WebhookEventName = Type.Enum([...WEBHOOK_EVENTS], { description: 'an event type (docs/webhooks.md)' });

export const WebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'an http or https URL the deliveries are POSTed to; checked against WEBHOOK_ALLOWED_HOSTS and WEBHOOK_ALLOW_PRIVATE' }),
    events: Type.Array(WebhookEventName, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true, description: 'the events wanted' }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const WebhookView = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  createdBy: Type.Union([Type.Integer(), Type.Null()], { description: 'the id of the API key that made it' }),
  createdAt: Timestamp,
});

export const NewWebhook = Type.Object({
  ...WebhookView.properties,
  secret: Type.String({ description: 'the signing secret (whsec_…), shown this once only' }),
});

export const WebhookDelivery = Type.Object({
  id: Type.Integer(),
  eventType: Type.String(),
  messageId: Type.String({ description: 'the webhook-id header: the same on every attempt' }),
  status: Type.Enum(['pending', 'delivered', 'failed'], { description: 'pending: waiting for its next attempt (or in one); failed: no 2xx answer within the retry window' }),
  attempts: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
  lastAttemptAt: Type.Union([Timestamp, Type.Null()]),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'while pending' }),
  response: Type.Union(
    [
      Type.Object({
        status: Type.Union([Type.Integer(), Type.Null()], { description: 'the last answer’s status; null when none came' }),
        body: Type.Union([Type.String(), Type.Null()], { description: 'the first 1024 bytes of the last answer’s body' }),
        error: Type.Union([Type.String(), Type.Null()], { description: 'why no answer came' }),
        durationMs: Type.Union([Type.Integer(), Type.Null()]),
      }),
      Type.Null(),
    ],
    { description: 'how the last attempt ended; null before the first' },
  ),
});
