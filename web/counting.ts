/** "1 image", "2,480 images": a number with its noun, in the singular for one. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** What a 412 means to the person whose change it refused. */
export const CHANGED_MEANWHILE = 'Someone changed this meanwhile; the current version is shown. Nothing was changed: try again.';
