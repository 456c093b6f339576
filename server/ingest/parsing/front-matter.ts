/**
 * Front matter of static-site generator pages: the metadata block at the top
 * of a markdown file, YAML between `---` lines (Jekyll, Hugo, Docusaurus,
 * MkDocs) or TOML between `+++` lines (Hugo). Only the fields kb-widget uses
 * are read; the block itself is never indexed or shown.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { parseDocument as parseYamlDocument } from 'yaml';

/** The fields of a page's front matter that ingestion uses; absent when the page does not set them. */
export interface FrontMatter {
  /** `title`: the page title. */
  title?: string;
  /** `linkTitle` (Hugo): the short title of navigation links, used when `title` is absent. */
  linkTitle?: string;
  /** `description`: a sentence or two about the page. */
  description?: string;
  /** `url` (Hugo) / `permalink` (Jekyll): the page's whole URL path, or an absolute URL. */
  url?: string;
  /** `slug`: replaces the last segment of the page's URL. */
  slug?: string;
  /** `aliases` (Hugo) / `redirect_from` (Jekyll): other paths that redirect to the page. Parsed, not used yet. */
  aliases: string[];
  /** `draft: true`: the page is not published. */
  draft: boolean;
}

/** A markdown source split into its front matter and the body after it. */
export interface SplitSource {
  /** Which delimiter the block used; `none` when the source has no front matter. */
  format: 'yaml' | 'toml' | 'none';
  frontMatter: FrontMatter;
  /**
   * The source after the closing delimiter. Lines of the block are replaced
   * by nothing, so the body starts at the line after it.
   */
  body: string;
}

/** The front matter block cannot be read; the message names the line and the problem. */
export class FrontMatterError extends Error {
  override name = 'FrontMatterError';
}

const DELIMITERS = { '---': 'yaml', '+++': 'toml' } as const;

/**
 * Splits a markdown source into front matter and body, and reads the front
 * matter's fields with a real parser (`yaml` for YAML 1.2, `smol-toml` for
 * TOML 1.0).
 *
 * A block is recognised only at the very start of the source (after an
 * optional byte-order mark): a line that is exactly `---` (YAML) or `+++`
 * (TOML), up to the next line that is exactly the same delimiter (YAML also
 * ends at `...`). An empty block is allowed; a key given twice keeps its
 * last value. Field rules: strings, numbers
 * and dates are read as text (`title: 2024` is "2024"); `aliases` is a list
 * of strings or one string; `draft` is a boolean (YAML `true`/`false`); any
 * other key is ignored.
 *
 * @param source the whole markdown file; `\n` or `\r\n` line ends
 * @returns the front matter and the body; `format: 'none'` and the source unchanged when it has no block
 * @throws FrontMatterError when a block is opened but never closed, does not
 *   parse, is not a mapping, or a field has the wrong type (`draft: maybe`,
 *   `title: [a, b]`)
 */
export function splitFrontMatter(source: string): SplitSource {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  const firstLineEnd = text.search(/\r?\n/);
  const firstLine = firstLineEnd === -1 ? text : text.slice(0, firstLineEnd);
  const format = DELIMITERS[firstLine.trimEnd() as keyof typeof DELIMITERS];
  if (format === undefined || firstLineEnd === -1) return { format: 'none', frontMatter: { aliases: [], draft: false }, body: source };

  const closing = format === 'yaml' ? /^(?:---|\.\.\.)[ \t]*$/m : /^\+\+\+[ \t]*$/m;
  const rest = text.slice(firstLineEnd).replace(/^\r?\n/, '');
  const close = closing.exec(rest);
  if (close === null) {
    throw new FrontMatterError(`The front matter opened by "${firstLine.trimEnd()}" on line 1 is never closed`);
  }
  const block = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const data = format === 'yaml' ? readYaml(block) : readToml(block);
  return { format, frontMatter: readFields(data, format), body };
}

/** Line of the front matter's first line in the file: the opening delimiter is line 1. */
const BLOCK_FIRST_LINE = 2;

function readYaml(block: string): unknown {
  // A key given twice keeps its last value, as Hugo's YAML reader does (kubernetes.io builds such pages).
  const document = parseYamlDocument(block, { uniqueKeys: false });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = (error.linePos?.[0].line ?? 1) + BLOCK_FIRST_LINE - 1;
    const message = firstLine(error.message).replace(/ at line \d+, column \d+:?$/, '');
    throw new FrontMatterError(`The YAML front matter does not parse (line ${line}): ${message}`);
  }
  return document.toJS() ?? {};
}

function readToml(block: string): unknown {
  try {
    return parseToml(block);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const message = firstLine(error.message).replace(/^Invalid TOML document: /, '');
    throw new FrontMatterError(`The TOML front matter does not parse (line ${error.line + BLOCK_FIRST_LINE - 1}): ${message}`);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

function readFields(data: unknown, format: 'yaml' | 'toml'): FrontMatter {
  if (data === null || typeof data !== 'object' || Array.isArray(data) || data instanceof Date) {
    throw new FrontMatterError(`The ${format.toUpperCase()} front matter is not a mapping of fields`);
  }
  const fields = data as Record<string, unknown>;
  const frontMatter: FrontMatter = { aliases: [], draft: false };
  const title = textField(fields, 'title');
  const linkTitle = textField(fields, 'linkTitle');
  const description = textField(fields, 'description');
  const url = textField(fields, 'url') ?? textField(fields, 'permalink');
  const slug = textField(fields, 'slug');
  if (title !== undefined) frontMatter.title = title;
  if (linkTitle !== undefined) frontMatter.linkTitle = linkTitle;
  if (description !== undefined) frontMatter.description = description;
  if (url !== undefined) frontMatter.url = url;
  if (slug !== undefined) frontMatter.slug = slug;
  frontMatter.aliases = listField(fields, 'aliases') ?? listField(fields, 'redirect_from') ?? [];
  const draft = fields['draft'];
  if (draft !== undefined && draft !== null) {
    if (typeof draft !== 'boolean') throw new FrontMatterError(`Front matter field "draft" must be true or false, not ${JSON.stringify(draft)}`);
    frontMatter.draft = draft;
  }
  return frontMatter;
}

/** A scalar field as trimmed text; undefined when absent, null or blank. */
function textField(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  const text = scalarText(value);
  if (text === undefined) throw new FrontMatterError(`Front matter field "${name}" must be text, not a list or mapping`);
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

/** A list of scalars, or one scalar, as trimmed non-blank texts; undefined when absent. */
function listField(fields: Record<string, unknown>, name: string): string[] | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    const text = scalarText(item);
    if (text === undefined) throw new FrontMatterError(`Front matter field "${name}" must be a list of text`);
    return text.trim();
  }).filter((text) => text !== '');
}
