//! A query's words, folded (`fold.ts`: NFKC, lowercase) as the server folds what it matches them
//! against, so the words the list and the quick switcher mark are the ones the server found.
//! (The ranking itself is the server's: `GET /api/jump`, `GET /api/find`.) Pure.
import { fold } from "./fold";

/** The words of a query, folded (NFKC, lowercased); none for blank input. */
export function words(query: string): string[] {
  return fold(query).split(/\s+/).filter(Boolean);
}
