// Which completed PostgreSQL statements count as changes of this process (PostgresChangeStamp).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayHaveChanged } from '../../src/db/pg-changes.ts';

test('reads, transaction starts and statements that changed no rows are not changes', () => {
  for (const command of ['SELECT', 'BEGIN', 'SHOW', 'SET']) assert.equal(mayHaveChanged({ command, rowCount: 3 }), false, command);
  for (const command of ['INSERT', 'UPDATE', 'DELETE', 'MERGE']) assert.equal(mayHaveChanged({ command, rowCount: 0 }), false, command);
});

test('rows written, commits, schema changes and failures are', () => {
  for (const command of ['INSERT', 'UPDATE', 'DELETE', 'MERGE']) assert.equal(mayHaveChanged({ command, rowCount: 1 }), true, command);
  for (const command of ['COMMIT', 'ROLLBACK', 'CREATE', 'ALTER', 'TRUNCATE', 'COPY']) assert.equal(mayHaveChanged({ command, rowCount: null }), true, command);
  assert.equal(mayHaveChanged(undefined), true);
  assert.equal(mayHaveChanged({}), true);
});
