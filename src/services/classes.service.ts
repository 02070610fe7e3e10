// Class rules: titles unique per project, and the annotation objects that name a class by title kept
// in step with it. A class that objects still use is deleted only when the caller asks for those
// objects to go with it.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/dialect.ts';
import type { ClassRow, Database } from '../db/types.ts';
import { type AppError, conflict, notFound } from '../errors.ts';
import type { AnnotationObject, ClassShape } from '../formats/canonical.ts';
import { nextClassColor } from '../formats/class-colors.ts';
import * as classes from '../repositories/classes.repository.ts';
import type { ClassResource } from '../repositories/classes.repository.ts';
import type { DatasetReader } from '../repositories/hidden-datasets.ts';
import * as projects from '../repositories/projects.repository.ts';
import { recordAnnotationsRewritten } from './annotation-edits.service.ts';
import { type RewriteRevisions, rewriteImageObjects } from './object-rewrite.ts';
import { type Page, type PageRequest, pageOfRows } from './paging.ts';
import { checkIfMatch } from './preconditions.ts';
import { type Caller, readerOf } from './project-access.ts';
import { requireProject } from './projects.service.ts';
import { checkTitle } from './titles.ts';

const duplicateTitle = (title: string): AppError => conflict(`the project already has a class titled "${title}"`, { field: 'title', title });

export async function pageOfClasses(db: Kysely<Database>, teamId: number, projectId: number, request: PageRequest): Promise<Page<ClassResource>> {
  await requireProject(db, teamId, projectId);
  const { rows, nextAfterId } = pageOfRows(await classes.pageClasses(db, projectId, request.afterId, request.limit + 1), request.limit);
  return { items: rows.map(classes.toClassResource), nextAfterId, ...(request.total ? { total: await classes.countClasses(db, projectId) } : {}) };
}

export async function createClass(
  db: Kysely<Database>,
  teamId: number,
  projectId: number,
  input: { title: string; shape: ClassShape; color?: string | undefined },
): Promise<ClassResource> {
  checkTitle(input.title);
  try {
    const id = await db.transaction().execute(async (trx) => {
      // The project's row held: two classes created at once do not both take the same next colour.
      if (!(await projects.findProjectRow(trx, teamId, projectId, { lock: true }))) throw notFound('project', { projectId });
      const color = input.color ?? nextClassColor(await classes.classColors(trx, projectId));
      const id = await classes.insertClass(trx, projectId, { ...input, color });
      // The project's v1 representation lists its classes, so it changed too.
      await projects.touchProject(trx, projectId);
      return id;
    });
    return await describeClass(db, teamId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(input.title);
    throw error;
  }
}

export async function describeClass(db: Kysely<Database>, teamId: number, classId: number): Promise<ClassResource> {
  return classes.toClassResource(await requireClass(db, teamId, classId));
}

/**
 * Renames and/or recolours the class if `ifMatch` (when given) still names it as it is. A new title is
 * written into every object of the class in the same transaction, so no stored object ever names a
 * class the project does not have.
 */
export async function changeClass(
  db: Kysely<Database>,
  teamId: number,
  classId: number,
  change: { title?: string; color?: string },
  ifMatch: string | undefined,
  revisions?: RewriteRevisions,
): Promise<ClassResource> {
  if (change.title !== undefined) checkTitle(change.title);
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await requireClass(trx, teamId, classId, { lock: true });
      checkIfMatch(classes.toClassResource(row), ifMatch);
      const title = change.title ?? row.title;
      await classes.updateClass(trx, classId, { title, color: change.color ?? row.color });
      if (title !== row.title) {
        const rewritten: number[] = [];
        await forImagesNamingClass(trx, row, {}, async (images) => {
          rewritten.push(
            ...(await rewriteImageObjects(trx, images, (objects) =>
              objects.some((o) => o.classTitle === row.title) ? objects.map((o) => (o.classTitle === row.title ? { ...o, classTitle: title } : o)) : null,
            revisions)),
          );
        });
        await recordAnnotationsRewritten(trx, teamId, rewritten);
      }
      await projects.touchProject(trx, row.project_id);
      return classes.toClassResource((await classes.findClass(trx, teamId, classId))!);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTitle(change.title ?? '');
    throw error;
  }
}

/**
 * Deletes the class if `ifMatch` (when given) still names it as it is. While objects of the class are
 * stored the delete is refused with a 409 that says how many, unless `cascade` asks for those objects
 * to be removed with it: a project never holds an object of a class it does not have.
 */
export async function removeClass(
  db: Kysely<Database>,
  teamId: number,
  classId: number,
  options: { cascade: boolean; ifMatch: string | undefined; revisions?: RewriteRevisions },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await requireClass(trx, teamId, classId, { lock: true });
    checkIfMatch(classes.toClassResource(row), options.ifMatch);
    const ofClass = (o: AnnotationObject) => o.classTitle === row.title;
    if (options.cascade) {
      const rewritten: number[] = [];
      await forImagesNamingClass(trx, row, {}, async (images) => {
        rewritten.push(
          ...(await rewriteImageObjects(trx, images, (stored) => {
            const kept = stored.filter((o) => !ofClass(o));
            return kept.length === stored.length ? null : kept;
          }, options.revisions)),
        );
      });
      await recordAnnotationsRewritten(trx, teamId, rewritten);
    } else {
      const { objects, images } = await usageOf(trx, row);
      if (objects > 0) {
        throw conflict(`${objects} objects in ${images} images are of class "${row.title}"; delete with cascade=true to remove them too`, {
          classId,
          objects,
          images,
        });
      }
    }
    await classes.deleteClass(trx, classId);
    await projects.touchProject(trx, row.project_id);
  });
}

/**
 * How many objects of the class are stored, and in how many images of the project as the caller's
 * gallery shows it (managers-only datasets for its managers alone): what a cascading delete removes there. The honeypot copies in jobs are not counted (their
 * objects are an annotator's answers on a copy of a ground-truth image, which is counted).
 */
export async function classUsage(db: Kysely<Database>, caller: Caller, classId: number): Promise<{ classId: number; objects: number; images: number }> {
  const row = await requireClass(db, caller.teamId, classId);
  return { classId, ...(await usageOf(db, row, { visibleTo: await readerOf(db, caller, row.project_id) })) };
}

async function usageOf(db: Kysely<Database>, row: ClassRow, options: { visibleTo?: DatasetReader } = {}): Promise<{ objects: number; images: number }> {
  let objects = 0;
  let images = 0;
  await forImagesNamingClass(db, row, options, async (batch) => {
    for (const image of batch) {
      const count = (JSON.parse(image.objectsJson) as AnnotationObject[]).filter((o) => o.classTitle === row.title).length;
      objects += count;
      if (count > 0) images += 1;
    }
  });
  return { objects, images };
}

/** Images read at a time while a class's objects are counted or rewritten: memory stays bounded. */
const IMAGE_BATCH = 200;

/** Hands `each` the project's images that may hold objects of the class, a batch at a time. */
async function forImagesNamingClass(
  db: Kysely<Database>,
  row: ClassRow,
  options: { visibleTo?: DatasetReader },
  each: (images: { id: number; objectsJson: string }[]) => Promise<void>,
): Promise<void> {
  for (let afterId = 0; ; ) {
    const images = await classes.imagesNamingClass(db, row.project_id, row.title, afterId, IMAGE_BATCH, options);
    if (images.length > 0) await each(images);
    if (images.length < IMAGE_BATCH) return;
    afterId = images[images.length - 1]!.id;
  }
}

/** The class, or a 404 that reads the same whether it is missing or another team's. */
async function requireClass(db: Kysely<Database>, teamId: number, classId: number, options: { lock?: boolean } = {}): Promise<ClassRow> {
  const row = await classes.findClass(db, teamId, classId, options);
  if (!row) throw notFound('class', { classId });
  return row;
}
