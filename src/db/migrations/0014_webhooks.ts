// Webhooks: a team's endpoints that are told of events (docs/webhooks.md), and the outbox of their
// deliveries. A delivery row is written in the transaction of the change it reports, so an event is
// never lost when a process dies and never sent for a change that rolled back; workers claim due rows
// with a lease, as they claim tasks, so one of them sends each.
import type { Kysely } from 'kysely';
import { isPostgres, notNull, withIdColumn } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('webhooks'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('url', 'text', notNull)
    // JSON text: the event types wanted.
    .addColumn('events', 'text', notNull)
    // Kept in clear: every delivery is signed with it. Shown once, when the webhook is made.
    .addColumn('secret', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('created_by', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('webhooks_team_idx').on('webhooks').columns(['team_id', 'id']).execute();

  await withIdColumn(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_type', 'text', notNull)
    // The webhook-id header: the same on every attempt, so receivers can drop repeats.
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    // The body sent, exactly: {type, timestamp, data}.
    .addColumn('payload', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    // pending (waiting or being sent), delivered, failed (no 2xx before the retry window closed).
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('response_status', 'integer')
    // A bounded prefix of the last answer's body, or why there was none.
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('finished_at', 'text')
    .execute();
  // The claim looks for due pending rows; the list reads a webhook's rows newest first.
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_webhook_idx').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  if (isPostgres(db)) {
    await notifyChangesOf(db, 'webhooks');
    await notifyChangesOf(db, 'webhook_deliveries');
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
