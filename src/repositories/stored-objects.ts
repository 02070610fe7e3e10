// What the text of stored objects (images.objects_json) promises, for the code that reads it without
// parsing it. Objects are stored as serializeObjects writes them (the import's scanner writes the same
// bytes): a JSON array of objects, each beginning with `{"classTitle":` and the title as
// JSON.stringify writes it. Inside a JSON string every quote is escaped, so that text occurs nowhere
// but at the start of an object.

/** The objects of an image that has none. */
export const NO_OBJECTS = '[]';
/** How every stored object begins, its class title's JSON string next. */
export const OBJECT_START = '{"classTitle":';
const BACKSLASH = 0x5c;

/** Adds one for each object of the stored objects text to the count of its class title. */
export function countClassTitles(objectsJson: string, counts: Map<string, number>): void {
  let at = objectsJson.indexOf(OBJECT_START);
  while (at >= 0) {
    const start = at + OBJECT_START.length;
    // The title's closing quote: the first one not escaped by an odd run of backslashes.
    let end = start + 1;
    for (;;) {
      const quote = objectsJson.indexOf('"', end);
      if (quote < 0) return;
      let backslashes = 0;
      while (objectsJson.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
      end = quote + 1;
      if (backslashes % 2 === 0) break;
    }
    const text = objectsJson.slice(start, end);
    const title = text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
    counts.set(title, (counts.get(title) ?? 0) + 1);
    at = objectsJson.indexOf(OBJECT_START, end);
  }
}
