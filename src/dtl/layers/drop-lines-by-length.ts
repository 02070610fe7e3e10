// drop_lines_by_length: lines of `lines_class` are kept when their length (the sum of their
// segments) is at least `min_length` and at most `max_length`, and dropped otherwise; `invert` turns
// that round. With `resolution_compensation` the bounds are per 1000 pixels of the image's width.
import { ClassError, requireClass } from '../classes.ts';
import { withAnnotation } from '../item.ts';
import { type ProcessingLayer, shapesOf } from './layer.ts';

interface Settings {
  lines_class: string;
  min_length?: number;
  max_length?: number;
  invert?: boolean;
  resolution_compensation?: boolean;
}

export const dropLinesByLength: ProcessingLayer<Settings, Settings & { isLine: boolean }> = {
  plan(settings, input) {
    requireClass(input, settings.lines_class, '/lines_class');
    if (settings.min_length === undefined && settings.max_length === undefined) throw new ClassError('give min_length, max_length or both');
    return { output: input, prepared: { ...settings, isLine: shapesOf(input).get(settings.lines_class) === 'line' } };
  },
  run(item, p) {
    if (!p.isLine) return [item];
    const scale = p.resolution_compensation ? item.annotation.size.width / 1000 : 1;
    const objects = item.annotation.objects.filter((o) => {
      if (o.classTitle !== p.lines_class) return true;
      const points = o.points.exterior;
      let length = 0;
      for (let i = 1; i < points.length; i++) length += Math.hypot(points[i]![0] - points[i - 1]![0], points[i]![1] - points[i - 1]![1]);
      const within = (p.min_length === undefined || length >= p.min_length * scale) && (p.max_length === undefined || length <= p.max_length * scale);
      return within !== (p.invert ?? false);
    });
    return [withAnnotation(item, { ...item.annotation, objects })];
  },
};
