// Builders of test data, written through the same repositories the import uses.
import { createHash } from 'node:crypto';
import type { Context } from '../../src/context.ts';
import { type AnnotationObject, serializeObjects } from '../../src/formats/canonical.ts';
import * as datasets from '../../src/repositories/datasets.repository.ts';
import * as images from '../../src/repositories/images.repository.ts';
import * as projects from '../../src/repositories/projects.repository.ts';
import { ensureTeam } from '../../src/repositories/teams.repository.ts';
import { isoNow } from '../../src/clock.ts';

export const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

export async function newProject(
  ctx: Context,
  options: { team?: string; title?: string; classes?: { title: string; shape: string; color?: string }[] } = {},
): Promise<number> {
  const db = ctx.db.kysely;
  const teamId = await ensureTeam(db, options.team ?? 'alpha');
  const id = await projects.insertProject(db, teamId, options.title ?? 'project');
  for (const c of options.classes ?? []) {
    await db
      .insertInto('classes')
      .values({ project_id: id, title: c.title, shape: c.shape, color: c.color ?? '#FF0000', created_at: isoNow() })
      .execute();
  }
  return id;
}

/** A dataset; `managersOnly` makes it one only the project's managers see (docs/jobs.md, Quality). */
export async function newDataset(ctx: Context, projectId: number, title = 'ds', options: { managersOnly?: boolean } = {}): Promise<number> {
  return datasets.insertDataset(ctx.db.kysely, projectId, title, options.managersOnly ?? false);
}

let imageCounter = 0;

/** An image with real stored bytes (distinct per call unless `bytes` is given) and its annotation. */
export async function newImage(
  ctx: Context,
  datasetId: number,
  options: { name?: string; bytes?: Buffer; width?: number; height?: number; description?: string; objects?: AnnotationObject[] } = {},
): Promise<{ id: number; hash: string; size: number }> {
  const db = ctx.db.kysely;
  imageCounter += 1;
  const bytes = options.bytes ?? Buffer.from(`image bytes ${process.pid} ${imageCounter} ${Math.random()}`);
  const hash = hashOf(bytes);
  await ctx.blobs.putBytes(hash, bytes);
  const dataset = await db.selectFrom('datasets').select('project_id').where('id', '=', datasetId).executeTakeFirstOrThrow();
  const id = await db.transaction().execute(async (trx) => {
    await images.ensureBlob(trx, { hash, size: bytes.length, mediaType: 'image/png', width: options.width ?? 64, height: options.height ?? 48 });
    return images.insertImage(trx, {
      datasetId,
      projectId: dataset.project_id,
      name: options.name ?? `img-${imageCounter}.png`,
      hash,
      size: bytes.length,
      width: options.width ?? 64,
      height: options.height ?? 48,
      description: options.description ?? '',
      objectsJson: serializeObjects(options.objects ?? []),
    });
  });
  return { id, hash, size: bytes.length };
}

export function polygon(classTitle: string, points: [number, number][], tags: string[] = []): AnnotationObject {
  return { classTitle, description: '', tags, bitmap: null, points: { exterior: points, interior: [] } };
}

/** A project tag of `scope`, created by no one unless `createdBy` says so. */
export async function newTag(
  ctx: Context,
  projectId: number,
  options: { scope?: 'images' | 'figures'; title?: string; hotkey?: string; createdBy?: number } = {},
): Promise<number> {
  const now = isoNow();
  const row = await ctx.db.kysely
    .insertInto('project_tags')
    .values({
      project_id: projectId,
      scope: options.scope ?? 'images',
      title: options.title ?? `tag-${Math.random().toString(36).slice(2, 8)}`,
      hotkey: options.hotkey ?? '',
      created_by: options.createdBy ?? null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Attaches an `images` tag to an image directly. */
export async function tagImage(ctx: Context, imageId: number, tagId: number): Promise<void> {
  await ctx.db.kysely.insertInto('image_tags').values({ image_id: imageId, tag_id: tagId, value: null }).execute();
}

/** Records that the image's objects use the `figures` tag, as an import does after writing them. */
export async function referenceFigureTag(ctx: Context, imageId: number, tagId: number): Promise<void> {
  await ctx.db.kysely.insertInto('object_tag_refs').values({ image_id: imageId, tag_id: tagId }).execute();
}

/** The id of a user of a team, as the keys of startTestApp create them (`alice` of `alpha`). */
export async function userId(ctx: Context, team: string, login: string): Promise<number> {
  const row = await ctx.db.kysely
    .selectFrom('users')
    .innerJoin('teams', 'teams.id', 'users.team_id')
    .select('users.id')
    .where('teams.name', '=', team)
    .where('users.login', '=', login)
    .executeTakeFirstOrThrow();
  return row.id;
}
