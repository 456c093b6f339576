/**
 * Whether an answer names the API or term a right answer must name (the
 * documentation evaluation's `key`, eval/docs-questions.ts).
 *
 * A key is a list of entries, and **every** entry must appear; an entry is
 * a term, or a list of alternative terms of which any one will do:
 * `[["fs.stat", "fs.statSync", "fsPromises.stat"], "size"]` asks for one of
 * the stat functions and the word `size`.
 *
 * Matching is robust to presentation, not to content: both texts are
 * compared in lower case, without backticks (inline code), with every
 * whitespace run as one space; a term must then occur as written, and where
 * it begins or ends with an identifier character (letter, digit, `$`) it
 * must not continue an identifier there. So `fs.stat` matches
 * "`fs.stat(path)`" and "Fs.stat" but not `fs.statSync`, and `size` matches
 * `stats.size` but not `sizeof`; `--watch` matches `--watch-path`, whose
 * next character is not an identifier character.
 */

/** One required entry of a key: a term, or alternatives of which one must appear. */
export type KeyEntry = string | readonly string[];

/**
 * Characters that continue an identifier. `_` is left out: markdown uses it
 * for emphasis (`_may contain sensitive data_`), and a term is never told
 * apart from another by an underscore at its edge.
 */
const IDENTIFIER_CHARACTER = /[\p{L}\p{N}$]/u;

/**
 * @param text answer or document text (markdown allowed)
 * @returns the text as key terms are matched against it: lower case, no backticks, whitespace runs as one space
 */
export function normalizeForKeys(text: string): string {
  return text.toLowerCase().replaceAll('`', '').replace(/\s+/g, ' ');
}

/**
 * @param normalized text already passed through {@link normalizeForKeys}
 * @param term a key term as written in the question file
 * @returns whether the term occurs in the text on identifier boundaries
 */
export function containsKeyTerm(normalized: string, term: string): boolean {
  const needle = normalizeForKeys(term).trim();
  if (needle === '') return false;
  const guardStart = IDENTIFIER_CHARACTER.test(needle.charAt(0));
  const guardEnd = IDENTIFIER_CHARACTER.test(needle.charAt(needle.length - 1));
  for (let at = normalized.indexOf(needle); at !== -1; at = normalized.indexOf(needle, at + 1)) {
    const before = normalized.charAt(at - 1);
    const after = normalized.charAt(at + needle.length);
    if (guardStart && before !== '' && IDENTIFIER_CHARACTER.test(before)) continue;
    if (guardEnd && after !== '' && IDENTIFIER_CHARACTER.test(after)) continue;
    return true;
  }
  return false;
}

/** The alternatives of an entry, a single term being its own only alternative. */
export function alternativesOf(entry: KeyEntry): readonly string[] {
  return typeof entry === 'string' ? [entry] : entry;
}

/**
 * @param text the answer text (citation markers removed by the caller)
 * @param key the question's key; an empty key is never met
 * @returns whether every entry of the key has an alternative in the text
 */
export function meetsKey(text: string, key: readonly KeyEntry[]): boolean {
  if (key.length === 0) return false;
  const normalized = normalizeForKeys(text);
  return key.every((entry) => alternativesOf(entry).some((term) => containsKeyTerm(normalized, term)));
}
