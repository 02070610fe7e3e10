// A gallery's filters as they stand in the URL (`?dataset=3&class=2&tag=5&name=frame_&predicted=0.5`), so that a
// view can be shared and survives a reload; the image view carries them on to step through the same
// images.
import type { ImageFilter } from './api.ts';

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

export function filterFromUrl(params: URLSearchParams, projectId: number): ImageFilter {
  const datasetId = positive(params.get('dataset'));
  const name = params.get('name')?.slice(0, 1024) || undefined;
  return {
    ...(datasetId ? { datasetId } : { projectId }),
    classId: positive(params.get('class')),
    tagId: positive(params.get('tag')),
    nameContains: name,
    predictionScore: score(params.get('predicted')),
  };
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
export const filterKey = (filter: ImageFilter): string =>
  [filter.projectId, filter.datasetId, filter.classId, filter.tagId, filter.nameContains, filter.predictionScore].map((v) => v ?? '').join('|');
