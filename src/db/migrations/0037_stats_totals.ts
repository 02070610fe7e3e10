// Running totals behind a project's statistics, so the unfiltered page reads a few small tables instead
// of scanning every image and its image_classes rows:
// - dataset_class_totals: per dataset and class, the images holding the class, their objects and the
//   sums of the area, aspect and centre histograms of image_classes (a project's: the sum of its
//   datasets');
// - dataset_image_totals: per dataset and object count (counted one by one up to the cap, then
//   together), the images and their objects;
// - dataset_size_totals: per dataset and image size, the images.
// Triggers on images and image_classes keep them, in the statement (and so the transaction) of every
// write: inserts one at a time and in bulk, annotation saves, object rewrites, moves, and the deletes
// that cascade from a dataset, a project or a class, which no application code sees row by row.
// SQLite runs a trigger per row; PostgreSQL one per statement over its transition tables, so a bulk
// insert of a thousand images adds one grouped upsert, not a thousand. image_classes rows do not hold
// their image's dataset: their triggers read it from the image, and an image's delete takes its rows
// out of the class totals before the delete cascades to them (when the image is gone, their own
// triggers find no dataset and change nothing). A total that reaches zero stays
// as a row of zeros; readers skip those. A dataset's totals go with it, by a trigger rather than a
// foreign key: PostgreSQL refuses a cascade that deletes rows a trigger of the same delete updates.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { AREA_COLUMNS, ASPECT_COLUMNS, GRID_COLUMNS } from '../../formats/object-summary.ts';
import { OBJECTS_PER_IMAGE_CAP } from '../../repositories/project-stats.repository.ts';
import { isPostgres } from '../dialect.ts';
import { notifyChangesOf } from './0006_change_notifications.ts';

const HISTOGRAM = [...AREA_COLUMNS, ...ASPECT_COLUMNS, ...GRID_COLUMNS];
/** The summed columns of dataset_class_totals, each the sum of the same column of image_classes (images: of 1). */
const CLASS_SUMS = ['objects', ...HISTOGRAM];
const TABLES = ['dataset_class_totals', 'dataset_image_totals', 'dataset_size_totals'];

const ids = (names: readonly string[]) => sql.join(names.map((c) => sql.id(c)));
const cap = sql.lit(OBJECTS_PER_IMAGE_CAP);

async function createTables(db: Kysely<unknown>): Promise<void> {
  let classes = db.schema
    .createTable('dataset_class_totals')
    .addColumn('dataset_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('class_id', 'integer', (c) => c.notNull().references('classes.id').onDelete('cascade'))
    .addColumn('images', 'integer', (c) => c.notNull())
    .addColumn('objects', 'bigint', (c) => c.notNull());
  for (const column of HISTOGRAM) classes = classes.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  await classes.addPrimaryKeyConstraint('dataset_class_totals_pk', ['dataset_id', 'class_id']).execute();
  await db.schema.createIndex('dataset_class_totals_project_idx').on('dataset_class_totals').columns(['project_id', 'class_id']).execute();
  await db.schema.createIndex('dataset_class_totals_class_idx').on('dataset_class_totals').column('class_id').execute();
  await db.schema
    .createTable('dataset_image_totals')
    .addColumn('dataset_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    // The object count, or the cap for every count at or above it.
    .addColumn('objects_bin', 'integer', (c) => c.notNull())
    .addColumn('images', 'integer', (c) => c.notNull())
    .addColumn('objects', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dataset_image_totals_pk', ['dataset_id', 'objects_bin'])
    .execute();
  await db.schema.createIndex('dataset_image_totals_project_idx').on('dataset_image_totals').column('project_id').execute();
  await db.schema
    .createTable('dataset_size_totals')
    .addColumn('dataset_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('images', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('dataset_size_totals_pk', ['dataset_id', 'width', 'height'])
    .execute();
  await db.schema.createIndex('dataset_size_totals_project_idx').on('dataset_size_totals').column('project_id').execute();
}

/**
 * The totals of the rows of `from` (image_classes, or a trigger's transition table of it) aliased ic,
 * grouped by the dataset `dataset` names (of images i joined on the image, unless `join` says otherwise).
 */
function classTotalsOf(
  from: RawBuilder<unknown>,
  sign: '' | '-',
  dataset = sql`i.dataset_id`,
  join = sql`join images i on i.id = ic.image_id`,
  stripe?: StripeOf,
): RawBuilder<unknown> {
  const s = sql.raw(sign);
  const striped = stripe ? sql`, ${stripe(sql`ic.image_id`)}` : sql``;
  return sql`select ${dataset}, min(ic.project_id), ic.class_id${striped}, ${s}count(*), ${sql.join(CLASS_SUMS.map((c) => sql`${s}sum(ic.${sql.id(c)})`))}
    from ${from} ic ${join} group by ${dataset}, ic.class_id${striped}`;
}

function imageTotalsOf(from: RawBuilder<unknown>, sign: '' | '-', least: string, stripe?: StripeOf): RawBuilder<unknown> {
  const s = sql.raw(sign);
  const bin = sql`${sql.raw(least)}(object_count, ${cap})`;
  const striped = stripe ? sql`, ${stripe(sql`id`)}` : sql``;
  return sql`select dataset_id, project_id, ${bin}${striped}, ${s}count(*), ${s}sum(object_count) from ${from} group by dataset_id, project_id, ${bin}${striped}`;
}

function sizeTotalsOf(from: RawBuilder<unknown>, sign: '' | '-', stripe?: StripeOf): RawBuilder<unknown> {
  const striped = stripe ? sql`, ${stripe(sql`id`)}` : sql``;
  return sql`select dataset_id, project_id, width, height${striped}, ${sql.raw(sign)}count(*) from ${from} group by dataset_id, project_id, width, height${striped}`;
}

/**
 * The stripe of an image's rows in the totals, from its id (migration 0041 adds it to their keys on
 * PostgreSQL); without one, a dataset's totals are one row per class, object count and size.
 */
export type StripeOf = (imageId: RawBuilder<unknown>) => RawBuilder<unknown>;

const CLASS_KEYS = ['dataset_id', 'class_id'];
const IMAGE_KEYS = ['dataset_id', 'objects_bin'];
const SIZE_KEYS = ['dataset_id', 'width', 'height'];
const CLASS_COLUMNS = ['dataset_id', 'project_id', 'class_id', 'images', ...CLASS_SUMS];
const IMAGE_COLUMNS = ['dataset_id', 'project_id', 'objects_bin', 'images', 'objects'];
const SIZE_COLUMNS = ['dataset_id', 'project_id', 'width', 'height', 'images'];

/** The keys and columns of the three tables, with `stripe` after the keys when striped. */
function layoutOf(striped: boolean) {
  const keys = (k: string[]) => (striped ? [...k, 'stripe'] : k);
  const columns = (c: string[], after: string) => (striped ? c.flatMap((name) => (name === after ? [name, 'stripe'] : [name])) : c);
  return {
    classKeys: keys(CLASS_KEYS),
    imageKeys: keys(IMAGE_KEYS),
    sizeKeys: keys(SIZE_KEYS),
    classColumns: columns(CLASS_COLUMNS, 'class_id'),
    imageColumns: columns(IMAGE_COLUMNS, 'objects_bin'),
    sizeColumns: columns(SIZE_COLUMNS, 'height'),
  };
}

/** Adds the rows of a select (in `columns` order) to `table`'s totals, `sums` added on a conflict of `keys`. */
function addTo(table: string, columns: string[], keys: string[], sums: string[], rows: RawBuilder<unknown>, where = false): RawBuilder<unknown> {
  // SQLite reads "select … on conflict" as a join's ON without a WHERE between them.
  const w = where ? sql` where true` : sql``;
  return sql`insert into ${sql.id(table)} (${ids(columns)}) ${rows}${w}
    on conflict (${ids(keys)}) do update set ${sql.join(sums.map((c) => sql`${sql.id(c)} = ${sql.id(table)}.${sql.id(c)} + excluded.${sql.id(c)}`))}`;
}

const classAdd = ['images', ...CLASS_SUMS];
const subtractSet = (from: string) => sql.join(CLASS_SUMS.map((c) => sql`${sql.id(c)} = dataset_class_totals.${sql.id(c)} - ${sql.raw(from)}.${sql.id(c)}`));

/** SQLite: one trigger per row and event. `row` is new or old. */
export function sqliteClassRow(row: 'new' | 'old'): RawBuilder<unknown> {
  if (row === 'new') {
    const values = sql.join([sql`i.dataset_id`, sql`new.project_id`, sql`new.class_id`, sql`1`, ...CLASS_SUMS.map((c) => sql`new.${sql.id(c)}`)]);
    return sql`${addTo('dataset_class_totals', CLASS_COLUMNS, CLASS_KEYS, classAdd, sql`select ${values} from images i where i.id = new.image_id`)};`;
  }
  return sql`update dataset_class_totals set images = images - 1, ${subtractSet('old')}
    where class_id = old.class_id and dataset_id = (select dataset_id from images where id = old.image_id);`;
}

/** SQLite: an image's class rows taken out of (sign -) or put into (+) the class totals of `dataset`. */
function sqliteImageClasses(image: string, dataset: string, sign: '-' | '+'): RawBuilder<unknown> {
  if (sign === '-') {
    return sql`update dataset_class_totals set images = dataset_class_totals.images - 1, ${subtractSet('ic')}
      from image_classes ic where ic.image_id = ${sql.raw(image)} and dataset_class_totals.dataset_id = ${sql.raw(dataset)} and dataset_class_totals.class_id = ic.class_id;`;
  }
  return sql`${addTo('dataset_class_totals', CLASS_COLUMNS, CLASS_KEYS, classAdd, sql`${classTotalsOf(sql`image_classes`, '', sql.raw(dataset), sql`where ic.image_id = ${sql.raw(image)}`)}`)};`;
}

export function sqliteImageRow(row: 'new' | 'old'): RawBuilder<unknown> {
  if (row === 'new') {
    return sql`${addTo('dataset_image_totals', IMAGE_COLUMNS, IMAGE_KEYS, ['images', 'objects'], sql`values (new.dataset_id, new.project_id, min(new.object_count, ${cap}), 1, new.object_count)`)};
      ${addTo('dataset_size_totals', SIZE_COLUMNS, SIZE_KEYS, ['images'], sql`values (new.dataset_id, new.project_id, new.width, new.height, 1)`)};`;
  }
  return sql`update dataset_image_totals set images = images - 1, objects = objects - old.object_count
      where dataset_id = old.dataset_id and objects_bin = min(old.object_count, ${cap});
    update dataset_size_totals set images = images - 1 where dataset_id = old.dataset_id and width = old.width and height = old.height;`;
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger image_classes_totals_insert after insert on image_classes begin ${sqliteClassRow('new')} end`.execute(db);
  await sql`create trigger image_classes_totals_delete after delete on image_classes begin ${sqliteClassRow('old')} end`.execute(db);
  await sql`create trigger image_classes_totals_update after update on image_classes begin ${sqliteClassRow('old')} ${sqliteClassRow('new')} end`.execute(db);
  await sql`create trigger datasets_totals_delete after delete on datasets begin
    ${sql.join(TABLES.map((t) => sql`delete from ${sql.id(t)} where dataset_id = old.id;`), sql` `)} end`.execute(db);
  await sql`create trigger images_totals_insert after insert on images begin ${sqliteImageRow('new')} end`.execute(db);
  await sql`create trigger images_class_totals_delete before delete on images begin ${sqliteImageClasses('old.id', 'old.dataset_id', '-')} end`.execute(db);
  await sql`create trigger images_class_totals_move after update of dataset_id on images when old.dataset_id <> new.dataset_id begin
    ${sqliteImageClasses('old.id', 'old.dataset_id', '-')} ${sqliteImageClasses('new.id', 'new.dataset_id', '+')} end`.execute(db);
  await sql`create trigger images_totals_delete after delete on images begin ${sqliteImageRow('old')} end`.execute(db);
  await sql`create trigger images_totals_update after update of dataset_id, project_id, object_count, width, height on images begin
    ${sqliteImageRow('old')} ${sqliteImageRow('new')} end`.execute(db);
}

/**
 * PostgreSQL: one trigger per statement, over its transition tables (new_rows, old_rows). Rows to
 * subtract are locked in key order first, and added in key order, so two writers of one project wait
 * for each other rather than deadlock. `stripe` keys the rows by a stripe of the image id too (0041).
 * Made with `create or replace`, so a later migration changes them in place.
 */
export async function postgresTotalsFunctions(db: Kysely<unknown>, stripe?: StripeOf): Promise<void> {
  const { classKeys, imageKeys, sizeKeys, classColumns, imageColumns, sizeColumns } = layoutOf(stripe !== undefined);
  const tk = (keys: string[], alias: string) => sql.join(keys.map((k) => sql`${sql.raw(alias)}.${sql.id(k)}`));
  const matching = (keys: string[]) => sql.join(keys.map((k) => sql`t.${sql.id(k)} = d.${sql.id(k)}`), sql` and `);
  // The order of a select in `columns` order by its keys (1-based places).
  const keyOrder = (columns: string[], keys: string[]) => sql.raw(keys.map((k) => columns.indexOf(k) + 1).join(', '));
  const imageStripe = stripe ? sql`, ${stripe(sql`id`)}` : sql``;
  // Totals to subtract, a select in classColumns order with negative sums.
  const subtractClassTotals = (totals: RawBuilder<unknown>) => sql`
    perform 1 from dataset_class_totals t where (${tk(classKeys, 't')}) in (select ${tk(classKeys, 'd')} from (${totals}) as d (${ids(classColumns)}))
      order by ${tk(classKeys, 't')} for update;
    update dataset_class_totals t set images = t.images + d.images, ${sql.join(CLASS_SUMS.map((c) => sql`${sql.id(c)} = t.${sql.id(c)} + d.${sql.id(c)}`))}
      from (${totals}) as d (${ids(classColumns)})
      where ${matching(classKeys)};`;
  const addClassTotals = (totals: RawBuilder<unknown>) =>
    sql`${addTo('dataset_class_totals', classColumns, classKeys, classAdd, sql`${totals} order by ${keyOrder(classColumns, classKeys)}`)};`;
  const ofImages = sql`join images i on i.id = ic.image_id`;
  // Rows of images gone already (a delete cascading from the image) find no image and change nothing.
  const subtractClasses = subtractClassTotals(classTotalsOf(sql`old_rows`, '-', sql`i.dataset_id`, ofImages, stripe));
  const addClasses = addClassTotals(classTotalsOf(sql`new_rows`, '', sql`i.dataset_id`, ofImages, stripe));
  const moved = sql`(select o.id, o.dataset_id as from_dataset, n.dataset_id as to_dataset from old_rows o join new_rows n using (id) where o.dataset_id <> n.dataset_id) m`;
  const moveClasses = sql`
    ${subtractClassTotals(classTotalsOf(sql`image_classes`, '-', sql`m.from_dataset`, sql`join ${moved} on m.id = ic.image_id`, stripe))}
    ${addClassTotals(classTotalsOf(sql`image_classes`, '', sql`m.to_dataset`, sql`join ${moved} on m.id = ic.image_id`, stripe))}`;
  const subtractImages = sql`
    perform 1 from dataset_image_totals t where (${tk(imageKeys, 't')}) in (select dataset_id, least(object_count, ${cap})${imageStripe} from old_rows)
      order by ${tk(imageKeys, 't')} for update;
    update dataset_image_totals t set images = t.images + d.images, objects = t.objects + d.objects
      from (${imageTotalsOf(sql`old_rows`, '-', 'least', stripe)}) as d (${ids(imageColumns)})
      where ${matching(imageKeys)};
    perform 1 from dataset_size_totals t where (${tk(sizeKeys, 't')}) in (select dataset_id, width, height${imageStripe} from old_rows)
      order by ${tk(sizeKeys, 't')} for update;
    update dataset_size_totals t set images = t.images + d.images
      from (${sizeTotalsOf(sql`old_rows`, '-', stripe)}) as d (${ids(sizeColumns)})
      where ${matching(sizeKeys)};`;
  const addImages = sql`
    ${addTo('dataset_image_totals', imageColumns, imageKeys, ['images', 'objects'], sql`${imageTotalsOf(sql`new_rows`, '', 'least', stripe)} order by ${keyOrder(imageColumns, imageKeys)}`)};
    ${addTo('dataset_size_totals', sizeColumns, sizeKeys, ['images'], sql`${sizeTotalsOf(sql`new_rows`, '', stripe)} order by ${keyOrder(sizeColumns, sizeKeys)}`)};`;
  // An update that leaves the counted columns alone (a rename, a description) changes no total.
  const changedImages = sql`exists (select from old_rows o join new_rows n using (id)
    where (o.dataset_id, o.project_id, o.object_count, o.width, o.height) is distinct from (n.dataset_id, n.project_id, n.object_count, n.width, n.height))`;
  const functions: [string, RawBuilder<unknown>][] = [
    ['annostore_class_totals_insert', addClasses],
    ['annostore_class_totals_delete', subtractClasses],
    ['annostore_class_totals_update', sql`${subtractClasses} ${addClasses}`],
    ['annostore_image_totals_insert', addImages],
    ['annostore_image_totals_delete', subtractImages],
    ['annostore_image_totals_update', sql`if ${changedImages} then ${subtractImages} ${addImages} ${moveClasses} end if;`],
  ];
  for (const [name, body] of functions) {
    await sql`create or replace function ${sql.id(name)}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`.execute(db);
  }
  await sql`create or replace function annostore_dataset_totals_delete() returns trigger language plpgsql as $$ begin
    ${sql.join(TABLES.map((t) => sql`delete from ${sql.id(t)} where dataset_id in (select id from old_rows);`), sql` `)}
    return null; end $$`.execute(db);
  // Before the delete cascades to them, one image at a time (a statement trigger would see them gone).
  const ownStripe = stripe ? sql` and t.stripe = ${stripe(sql`old.id`)}` : sql``;
  await sql`create or replace function annostore_image_class_totals_delete() returns trigger language plpgsql as $$ begin
    update dataset_class_totals t set images = t.images - 1, ${sql.join(CLASS_SUMS.map((c) => sql`${sql.id(c)} = t.${sql.id(c)} - ic.${sql.id(c)}`))}
      from image_classes ic where ic.image_id = old.id and t.dataset_id = old.dataset_id and t.class_id = ic.class_id${ownStripe};
    return old; end $$`.execute(db);
}

/** Fills the totals of the images stored (empty tables), keyed as postgresTotalsFunctions keys them. */
export async function fillTotals(db: Kysely<unknown>, stripe?: StripeOf): Promise<void> {
  const least = isPostgres(db) ? 'least' : 'min';
  const { classColumns, imageColumns, sizeColumns } = layoutOf(stripe !== undefined);
  await sql`insert into dataset_class_totals (${ids(classColumns)}) ${classTotalsOf(sql`image_classes`, '', sql`i.dataset_id`, sql`join images i on i.id = ic.image_id`, stripe)}`.execute(db);
  await sql`insert into dataset_image_totals (${ids(imageColumns)}) ${imageTotalsOf(sql`images`, '', least, stripe)}`.execute(db);
  await sql`insert into dataset_size_totals (${ids(sizeColumns)}) ${sizeTotalsOf(sql`images`, '', stripe)}`.execute(db);
}

/**
 * SQLite: adds to the totals the images with ids from `first` to `last` and their image_classes rows,
 * grouped, one statement a table: what the per-row insert triggers add, for a bulk insert during which
 * they stood aside (0044_deferred_totals.ts).
 */
export async function addTotalsOfImages<DB>(db: Kysely<DB>, first: number, last: number): Promise<void> {
  const images = sql`(select * from images where id between ${first} and ${last})`;
  const classRows = sql`(select * from image_classes where image_id between ${first} and ${last})`;
  await sql`${addTo('dataset_class_totals', CLASS_COLUMNS, CLASS_KEYS, classAdd, classTotalsOf(classRows, ''))}`.execute(db);
  await sql`${addTo('dataset_image_totals', IMAGE_COLUMNS, IMAGE_KEYS, ['images', 'objects'], imageTotalsOf(images, '', 'min'))}`.execute(db);
  await sql`${addTo('dataset_size_totals', SIZE_COLUMNS, SIZE_KEYS, ['images'], sizeTotalsOf(images, ''))}`.execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await postgresTotalsFunctions(db);
  // Named outside `annostore_*`, which names the change notices every table has (src/db/pg-changes.ts).
  await sql`create trigger stats_totals_delete after delete on datasets referencing old table as old_rows
    for each statement execute function annostore_dataset_totals_delete()`.execute(db);
  await sql`create trigger stats_class_totals_delete before delete on images for each row execute function annostore_image_class_totals_delete()`.execute(db);
  const events = [
    ['insert', sql`referencing new table as new_rows`],
    ['delete', sql`referencing old table as old_rows`],
    ['update', sql`referencing old table as old_rows new table as new_rows`],
  ] as const;
  for (const [table, kind] of [
    ['image_classes', 'class'],
    ['images', 'image'],
  ] as const) {
    for (const [event, referencing] of events) {
      await sql`create trigger ${sql.id(`stats_totals_${event}`)} after ${sql.raw(event)} on ${sql.id(table)} ${referencing}
        for each statement execute function ${sql.id(`annostore_${kind}_totals_${event}`)}()`.execute(db);
    }
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createTables(db);
  await fillTotals(db);
  if (isPostgres(db)) {
    await postgresTriggers(db);
    for (const table of TABLES) await notifyChangesOf(db, table);
  } else {
    await sqliteTriggers(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    for (const kind of ['class', 'image', 'image_class', 'dataset']) for (const event of ['insert', 'delete', 'update']) await sql`drop function if exists ${sql.id(`annostore_${kind}_totals_${event}`)}() cascade`.execute(db);
  } else {
    for (const table of ['image_classes', 'images', 'images_class', 'datasets']) for (const event of ['insert', 'delete', 'update', 'move']) await sql`drop trigger if exists ${sql.id(`${table}_totals_${event}`)}`.execute(db);
  }
  for (const table of [...TABLES].reverse()) await db.schema.dropTable(table).execute();
}
