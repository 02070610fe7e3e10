// Whether an image's name holds a text anywhere, without regard to case: each database with its own
// trigram index (migration 0019). Both fold Unicode case (CAFÉ holds café) and keep diacritics (café
// does not hold cafe); %, _ and \ in the text are plain characters.
import { type AliasedRawBuilder, type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from './dialect.ts';

/** Fewer characters than a trigram: no index can find them, the list is read in order instead. */
export const TRIGRAM = 3;

const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The few spellings of a short text that differ only in case, to look for each exactly. */
function caseVariants(text: string): string[] {
  let variants = [''];
  for (const c of text) {
    const forms = [...new Set([c, c.toLowerCase(), c.toUpperCase()])].filter((f) => [...f].length === 1);
    variants = variants.flatMap((v) => forms.map((f) => v + f));
  }
  return variants;
}

/**
 * Matches past which a text counts as common on SQLite. A common text is tested image by image as the
 * list is read (an index probe each: a page is found after a few hundred), a rarer one by the set of
 * its matches (made once: 50,000 cost about 40 ms). Taking the set of a text every name holds would
 * cost a second at a million images; probing for a rare one would read the whole list.
 */
const COMMON = 50_000;

/** A name search as planned: the text, and whether it is common (SQLite only). */
export interface NameSearch {
  text: string;
  common: boolean;
}

const phraseOf = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** Plans the search of `text` (not empty): on SQLite, counts its matches up to COMMON. */
export async function planNameSearch<DB>(db: Kysely<DB>, text: string): Promise<NameSearch> {
  if (isPostgres(db) || [...text].length < TRIGRAM) return { text, common: false };
  const { rows } = await sql<{ n: number }>`select count(*) as n from (select rowid from image_names where image_names match ${phraseOf(text)} limit ${COMMON})`.execute(db);
  return { text, common: Number(rows[0]?.n ?? 0) >= COMMON };
}

/**
 * SQLite, a common text: its matches as a table `name_matches` (`rowid`: the image id) to join, for a
 * count. Read from the index in id order, each probing the image, they are counted in half the time
 * their set takes to make and look up. Null where nameContains() is the way.
 */
export function nameMatches<DB>(db: Kysely<DB>, search: NameSearch): AliasedRawBuilder<{ rowid: number }, 'name_matches'> | null {
  if (isPostgres(db) || !search.common) return null;
  return sql<{ rowid: number }>`(select rowid from image_names where image_names match ${phraseOf(search.text)})`.as('name_matches');
}

/** `images.name` holds the search's text anywhere, case aside. */
export function nameContains<DB>(db: Kysely<DB>, search: NameSearch): RawBuilder<boolean> {
  const { text } = search;
  if (isPostgres(db)) {
    // pg_trgm's GIN index on lower(name) answers this when there are 3 characters or more; the
    // database's LC_CTYPE decides how lower() folds (C.UTF-8 and the *.UTF-8 locales fold all of
    // Unicode, plain C only ASCII).
    return sql<boolean>`(lower(images.name) like lower(${`%${likeEscaped(text)}%`}))`;
  }
  if ([...text].length >= TRIGRAM) {
    // A phrase of the trigram tokenizer is its text's trigrams one after another: the text itself,
    // case folded. Inside double quotes only a double quote is special, written twice.
    const phrase = phraseOf(text);
    if (search.common) return sql<boolean>`exists (select 1 from image_names where image_names match ${phrase} and image_names.rowid = images.id)`;
    return sql<boolean>`(images.id in (select rowid from image_names where image_names match ${phrase}))`;
  }
  // SQLite's own lower() and LIKE fold ASCII only: look for each spelling (at most 9 for 2 characters).
  return sql<boolean>`(${sql.join(
    caseVariants(text).map((v) => sql`instr(images.name, ${v}) > 0`),
    sql` or `,
  )})`;
}
