// A gallery's filters as they stand in the URL (`?dataset=3&class=2&tag=5&name=frame_&predicted=0.5`, and the
// combined filters by their API names: `classAny=1,2&classNone=3&maxObjects=0&sort=-objects`), so
// that a view can be shared and survives a reload; the image view and the statistics page carry them
// on.
import type { CombinedFilter, ImageFilter, ImageSort } from './api.ts';

/** A URL parameter's positive whole number, or undefined. */
export const positive = (text: string | null): number | undefined => {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** A URL parameter's score from 0 to 1, or undefined. */
const score = (text: string | null): number | undefined => {
  const n = text === null || text === '' ? NaN : Number(text);
  return n >= 0 && n <= 1 ? n : undefined;
};

const whole = (text: string | null): number | undefined => {
  if (text === null || text === '') return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

const ids = (text: string | null): number[] | undefined => {
  const list = (text ?? '').split(',').map(positive).filter((n): n is number => n !== undefined).slice(0, 100);
  return list.length ? list : undefined;
};

/** The IoU thresholds the server keeps the disagreement at. */
export const DISAGREE_IOUS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

const LISTS = ['datasetIds', 'classAny', 'classAll', 'classNone', 'tagAny', 'tagAll', 'tagNone'] as const;
const COUNTS = ['minObjects', 'maxObjects', 'boxMinArea', 'boxMaxArea', 'boxMinSide', 'boxMaxSide'] as const;
const SORTS: ImageSort[] = ['id', '-id', 'name', 'objects', '-objects'];

export function filterFromUrl(params: URLSearchParams, projectId: number): ImageFilter {
  const datasetId = positive(params.get('dataset'));
  const name = params.get('name')?.slice(0, 1024) || undefined;
  const filter: ImageFilter = {
    ...(datasetId ? { datasetId } : { projectId }),
    classId: positive(params.get('class')),
    tagId: positive(params.get('tag')),
    nameContains: name,
    predictionScore: score(params.get('predicted')),
  };
  const disagreeModel = params.get('disagreeModel')?.slice(0, 200);
  if (disagreeModel) {
    filter.disagreeModel = disagreeModel;
    filter.disagreeScore = score(params.get('disagreeScore'));
    const iou = score(params.get('disagreeIou'));
    filter.disagreeIou = iou !== undefined && DISAGREE_IOUS.includes(iou) ? iou : undefined;
    const type = params.get('disagreeIouType');
    filter.disagreeIouType = type === 'bbox' || type === 'segm' ? type : undefined;
  }
  const combined: CombinedFilter = {};
  for (const key of LISTS) combined[key] = ids(params.get(key));
  for (const key of COUNTS) combined[key] = whole(params.get(key));
  const annotated = params.get('annotated');
  if (annotated === 'true' || annotated === 'false') combined.annotated = annotated === 'true';
  combined.boxClassId = positive(params.get('boxClassId'));
  const values = (params.get('tagValue') ?? '').split(',').filter((v) => /^[1-9][0-9]*:./.test(v)).slice(0, 100);
  if (values.length) combined.tagValue = values;
  const sort = params.get('sort') as ImageSort | null;
  return { ...filter, ...combined, sort: sort && SORTS.includes(sort) && sort !== 'id' ? sort : undefined };
}

/** The URL parameters of a filter; `project` is named too where the path does not say it (the image view). */
export function filterParams(filter: ImageFilter, options: { withProject?: boolean } = {}): URLSearchParams {
  const params = new URLSearchParams();
  if (options.withProject && filter.projectId) params.set('project', String(filter.projectId));
  if (filter.datasetId) params.set('dataset', String(filter.datasetId));
  if (filter.classId) params.set('class', String(filter.classId));
  if (filter.tagId) params.set('tag', String(filter.tagId));
  if (filter.nameContains) params.set('name', filter.nameContains);
  if (filter.predictionScore !== undefined) params.set('predicted', String(filter.predictionScore));
  if (filter.disagreeModel) {
    params.set('disagreeModel', filter.disagreeModel);
    if (filter.disagreeScore !== undefined) params.set('disagreeScore', String(filter.disagreeScore));
    if (filter.disagreeIou !== undefined) params.set('disagreeIou', String(filter.disagreeIou));
    if (filter.disagreeIouType) params.set('disagreeIouType', filter.disagreeIouType);
  }
  for (const key of LISTS) if (filter[key]?.length) params.set(key, filter[key].join(','));
  if (filter.annotated !== undefined) params.set('annotated', String(filter.annotated));
  for (const key of COUNTS) if (filter[key] !== undefined) params.set(key, String(filter[key]));
  if (filter.boxClassId) params.set('boxClassId', String(filter.boxClassId));
  if (filter.tagValue?.length) params.set('tagValue', filter.tagValue.join(','));
  if (filter.sort && filter.sort !== 'id') params.set('sort', filter.sort);
  return params;
}

/** A URL's query of its parameters: empty when there are none, else with its `?`. */
export const queryOf = (params: URLSearchParams): string => {
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** The URL query of a filter (see filterParams). */
export const filterQuery = (filter: ImageFilter, options: { withProject?: boolean } = {}): string => queryOf(filterParams(filter, options));

/** A filter as a stable text, to tell whether two are the same. */
export const filterKey = (filter: ImageFilter): string => `${filter.projectId ?? ''}|${filterParams(filter).toString()}`;

/** Whether the filter narrows the list beyond its dataset or project. */
export const narrows = (filter: ImageFilter): boolean => {
  const params = filterParams({ ...filter, datasetId: undefined, sort: undefined });
  return [...params.keys()].length > 0;
};
