// The statistics page of a project, for all its images or those a filter finds (the image list's
// filters). Answers are kept until the database changes, as image list pages are.
import type { Kysely } from 'kysely';
import { StampedCache } from '../db/stamped-cache.ts';
import type { Database } from '../db/types.ts';
import { AREA_EDGES, ASPECT_EDGES, GRID } from '../formats/object-summary.ts';
import { OBJECTS_PER_IMAGE_CAP, imageStats } from '../repositories/project-stats.repository.ts';
import { type DatasetReader, hiddenDatasetsOf } from '../repositories/hidden-datasets.ts';
import { type ImageFilterQuery, filterOf } from './image-list.service.ts';
import { type Caller, readerOf } from './project-access.ts';

export interface ProjectStats {
  images: number;
  objects: number;
  imagesWithoutObjects: number;
  classes: {
    classId: number;
    title: string;
    color: string;
    images: number;
    objects: number;
    area: number[];
    aspect: number[];
    /** Objects whose box centre falls in each cell of a grid × grid split of the image, row by row. */
    heatmap: number[];
  }[];
  datasets: { datasetId: number; title: string; images: number; objects: number; imagesWithoutObjects: number }[];
  objectsPerImage: number[];
  area: { edges: number[]; counts: number[] };
  aspect: { edges: number[]; counts: number[] };
  grid: number;
  imageSizes: { width: number; height: number; images: number }[];
}

const sum = (lists: number[][], length: number) => lists.reduce((acc, list) => acc.map((v, i) => v + list[i]!), new Array<number>(length).fill(0));

export async function projectStats(db: Kysely<Database>, teamId: number, projectId: number, query: ImageFilterQuery, reader: DatasetReader): Promise<ProjectStats> {
  const filter = await filterOf(db, teamId, { ...query, projectId }, reader);
  const stats = await imageStats(db, filter);
  const [classes, datasets] = await Promise.all([
    db.selectFrom('classes').select(['id', 'title', 'color']).where('project_id', '=', projectId).orderBy('id').execute(),
    db.selectFrom('datasets').select(['id', 'title']).where('project_id', '=', projectId).where('id', 'not in', hiddenDatasetsOf(db, projectId, reader)).orderBy('id').execute(),
  ]);
  const byClass = new Map(stats.classes.map((c) => [c.classId, c]));
  const byDataset = new Map(stats.datasets.map((d) => [d.datasetId, d]));
  const images = stats.datasets.reduce((a, d) => a + d.images, 0);
  const classList = classes.map((c) => {
    const s = byClass.get(c.id);
    return {
      classId: c.id,
      title: c.title,
      color: c.color,
      images: s?.images ?? 0,
      objects: s?.objects ?? 0,
      area: s?.area ?? new Array<number>(AREA_EDGES.length + 1).fill(0),
      aspect: s?.aspect ?? new Array<number>(ASPECT_EDGES.length + 1).fill(0),
      heatmap: s?.grid ?? new Array<number>(GRID * GRID).fill(0),
    };
  });
  // Datasets the filter leaves out of the list are not shown.
  const shown = filter.datasetId !== undefined || filter.datasetIds ? datasets.filter((d) => byDataset.has(d.id) || d.id === filter.datasetId || filter.datasetIds?.includes(d.id)) : datasets;
  return {
    images,
    objects: stats.datasets.reduce((a, d) => a + d.objects, 0),
    imagesWithoutObjects: stats.datasets.reduce((a, d) => a + d.imagesWithoutObjects, 0),
    classes: classList,
    datasets: shown.map((d) => {
      const s = byDataset.get(d.id);
      return { datasetId: d.id, title: d.title, images: s?.images ?? 0, objects: s?.objects ?? 0, imagesWithoutObjects: s?.imagesWithoutObjects ?? 0 };
    }),
    objectsPerImage: stats.objectsPerImage,
    area: { edges: [...AREA_EDGES], counts: sum(classList.map((c) => c.area), AREA_EDGES.length + 1) },
    aspect: { edges: [...ASPECT_EDGES], counts: sum(classList.map((c) => c.aspect), ASPECT_EDGES.length + 1) },
    grid: GRID,
    imageSizes: stats.imageSizes,
  };
}

export { OBJECTS_PER_IMAGE_CAP };

/** Statistics kept until the database may have changed, by team, project, reader and filter. */
export class ProjectStatsCache {
  private readonly kept = new StampedCache<ProjectStats>(32);

  constructor(private readonly db: Kysely<Database>) {}

  async stats(caller: Caller, projectId: number, query: ImageFilterQuery, stamp: number | undefined): Promise<ProjectStats> {
    const reader = await readerOf(this.db, caller, projectId);
    const key = JSON.stringify([caller.teamId, projectId, reader, query]);
    const kept = this.kept.get(stamp, key);
    if (kept) return kept;
    const stats = await projectStats(this.db, caller.teamId, projectId, query, reader);
    this.kept.set(stamp, key, stats);
    return stats;
  }
}
