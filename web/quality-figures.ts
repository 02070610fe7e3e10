// How the quality page writes the report's figures (docs/jobs.md "Quality"); none is "—".

/** A share as a percentage with one decimal ("66.7%"). */
export const percent = (value: number | null): string => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);
/** An IoU with three decimals ("0.812"). */
export const iou = (value: number | null): string => (value === null ? '—' : value.toFixed(3));
