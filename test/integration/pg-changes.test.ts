// PostgreSQL's change stamp: this process's writes count at once, other processes' commits once their
// notification arrives, and without a listening connection there is no stamp. On the real server, in
// a migrated schema of its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import { type Context, createContext } from '../../src/context.ts';
import { listenerName } from '../../src/db/pg-changes.ts';
import { currentSnapshot } from '../../src/db/pg-snapshot.ts';
import { settledStamp, stampAfter } from '../helpers/change-stamps.ts';
import { dialects } from '../helpers/dialects.ts';

const postgres = dialects.find((d) => d.name === 'postgres')!;

/** Tables nothing reads through a kept answer, so no change of theirs needs telling (see their migrations). */
const UNWATCHED_TABLES = ['audit', 'rate_buckets'];

describe('PostgresChangeStamp', { skip: postgres.skip }, () => {
  let config: Config;
  let mine: Context;
  let theirs: Context;

  before(async () => {
    config = postgres.freshConfig();
    mine = await createContext(config);
    theirs = await createContext(config, { migrate: false });
    // Listening starts with the first question.
    await stampAfter(mine.db, undefined);
  });
  after(async () => {
    await theirs?.close();
    await mine?.close();
    if (config) await postgres.cleanup(config);
  });

  test('stays the same while nothing is written, reads included', async () => {
    const first = mine.db.changeStamp();
    assert.notEqual(first, undefined);
    await mine.db.kysely.selectFrom('teams').selectAll().execute();
    await theirs.db.kysely.selectFrom('teams').selectAll().execute();
    await sleep(20);
    assert.equal(mine.db.changeStamp(), first);
  });

  test('goes up as soon as a write of this process completes', async () => {
    const first = mine.db.changeStamp()!;
    await mine.db.kysely.insertInto('teams').values({ name: 'mine', created_at: '2026-01-01T00:00:00Z' }).execute();
    assert.ok(mine.db.changeStamp()! > first);
  });

  test('goes up once another process commits, and not before', async () => {
    // The notification of this process's own write before arrives too, and counts again.
    const first = (await settledStamp(mine.db, 50))!;
    await theirs.db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('teams').values({ name: 'theirs', created_at: '2026-01-01T00:00:00Z' }).execute();
      await sleep(50);
      assert.equal(mine.db.changeStamp(), first, 'an uncommitted write moved the stamp');
    });
    assert.ok((await stampAfter(mine.db, first))! > first);
  });

  test('ignores commits to another schema of the same database', async () => {
    const otherConfig = postgres.freshConfig();
    const other = await createContext(otherConfig);
    try {
      const first = mine.db.changeStamp();
      await other.db.kysely.insertInto('teams').values({ name: 'elsewhere', created_at: '2026-01-01T00:00:00Z' }).execute();
      assert.equal(await stampAfter(mine.db, first, 200), first);
    } finally {
      await other.close();
      await postgres.cleanup(otherConfig);
    }
  });

  test('is undefined while the listening connection is lost, and comes back higher', async () => {
    const first = mine.db.changeStamp()!;
    const { rows } = await sql<{ gone: boolean }>`select pg_terminate_backend(pid) as gone from pg_stat_activity
      where application_name = ${listenerName(config.databaseSchema!)}`.execute(theirs.db.kysely);
    assert.deepEqual(rows, [{ gone: true }]);
    assert.equal(await stampAfter(mine.db, first), undefined);
    const back = await stampAfter(mine.db, undefined, 5000);
    assert.ok(back !== undefined && back > first, `stamp ${back} after ${first}`);
  });

  test('a statement that changes no rows moves neither the stamp nor the snapshot', async () => {
    let quiet = false;
    // Other databases of the server may commit in between; a quiet moment comes soon.
    for (let attempt = 0; attempt < 20 && !quiet; attempt += 1) {
      const stamp = await settledStamp(mine.db, 50);
      const snapshot = await currentSnapshot(mine.db.kysely);
      // As the workers' poll for tasks does, from this process and from another one.
      await mine.db.kysely.updateTable('tasks').set({ status: 'queued' }).where('id', '<', 0).execute();
      await theirs.db.kysely.deleteFrom('staged_files').where('id', '=', 'none').execute();
      await sleep(50);
      quiet = mine.db.changeStamp() === stamp && (await currentSnapshot(mine.db.kysely)) === snapshot;
    }
    assert.ok(quiet, 'statements that changed nothing moved the stamp or the snapshot');
  });

  test('every table of the schema notifies its changes', async () => {
    const { rows } = await sql<{ table_name: string; triggers: string }>`
      select t.table_name, coalesce(string_agg(g.trigger_name || ' ' || g.event_manipulation, ', ' order by g.trigger_name), '') as triggers
      from information_schema.tables t
      left join information_schema.triggers g
        on g.event_object_schema = t.table_schema and g.event_object_table = t.table_name and g.trigger_name like 'annostore_%'
      where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' and t.table_name not like 'kysely_%'
        and t.table_name not in (${sql.join(UNWATCHED_TABLES)})
      group by t.table_name`.execute(mine.db.kysely);
    assert.ok(rows.length >= 17, `only ${rows.length} tables`);
    for (const row of rows) {
      // information_schema lists no TRUNCATE triggers; pg_trigger does, checked below.
      assert.equal(row.triggers, 'annostore_delete DELETE, annostore_insert INSERT, annostore_update UPDATE', row.table_name);
    }
    const truncate = await sql<{ n: number }>`
      select count(*)::int as n from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace s on s.oid = c.relnamespace
      where s.nspname = current_schema() and g.tgname = 'annostore_truncate'`.execute(mine.db.kysely);
    assert.equal(truncate.rows[0]!.n, rows.length);
  });
});
