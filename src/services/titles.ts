// The rule every title shares beyond its schema (1 to 255 characters): it says something.
import { validation } from '../errors.ts';

export function checkTitle(title: string, field = 'title'): void {
  if (title.trim() === '') throw validation(`${field} must not be blank`, { field });
}
