import { escapeLiteralMarkers } from '../../../protocol/citation-markers.ts';
import { fenceCodeExample, findCodeExample } from './code-example.ts';
import { sectionDeprecation } from '../passages/deprecation.ts';
import { analyzePassage, identifierTerms } from '../passages/passage-analysis.ts';
import { readHeading, sameHeadingPath } from '../passages/section-heading.ts';
import { clipAtWord, DANGLING_PRONOUN, type Sentence } from '../../text/sentences.ts';
import type { ScoredPassage } from '../../store/store.ts';

/**
 * Writes the text of an extractive answer (engine/extractive/extractive-answerer.ts)
 * from the sentences it chose, so that a person can act on it:
 *
 * 1. When the answer's section documents an API or a task (`leads`), the
 *    answer opens with the section's heading (`` `fs.stat(path[, options], callback)`: ``;
 *    a worded heading in bold) and the sentence that says what it does: the
 *    section's first prose sentence (with the next one when it is shorter
 *    than {@link SHORT_DESCRIPTION} characters, "Asynchronous stat(2)."),
 *    then the chosen sentences. A chosen sentence of another section of the
 *    same page is led by that section's heading when it names an API.
 * 2. Otherwise the chosen sentences in rank order (a run from another
 *    section than the first's led by its heading when that names an API,
 *    as in 1), but never opening with
 *    a bare option bullet (the section's heading is put before it) or a
 *    dangling "It"/"This"/"These" (the sentence before it is quoted too,
 *    when the passage has one; in technical documentation, one that writes
 *    code, the section's heading leads otherwise). A later sentence of a
 *    list item that names something is led by the item's name
 *    ({@link withItemName}).
 * 3. A how-question (engine/extractive/question-intent.ts) gets the section's first
 *    code example as a fenced block (engine/extractive/code-example.ts), cut to the
 *    room left. When the section documents a property of a class, the
 *    class's description follows under its heading (how the object is
 *    obtained: {@link ownerHeadingPath}), and its example may serve.
 * 4. At most {@link MAX_ANSWER_CHARACTERS} characters in all: sentences that
 *    do not fit are left out (never the first), an example that does not
 *    fit is cut or left out.
 *
 * Each run of text from one passage ends with its `[n]` marker (before the
 * closing punctuation); a code example from a passage the text does not
 * cite just before it is introduced by "Example [n]:".
 */

/** Longest answer, in characters, code example included: a short read in a help widget. */
export const MAX_ANSWER_CHARACTERS = 1200;
/** A description sentence shorter than this is followed by the next sentence of its paragraph. */
export const SHORT_DESCRIPTION = 60;
/** How far back the sentence a dangling pronoun points at is looked for. */
const MAX_ANTECEDENTS = 2;

/** A sentence the answerer chose, with its passage. */
export interface QuotedSentence {
  sentence: Sentence;
  passage: ScoredPassage;
  /** The passage's rank in the retrieval (0 = first). */
  rank: number;
}

/** What {@link writeAnswerText} needs. */
export interface AnswerTextInput {
  /** The chosen sentences, the best-supported first; the others in any order. */
  selected: readonly QuotedSentence[];
  /** The passage of the best-supported sentence. */
  anchor: ScoredPassage;
  /** Whether the anchor's section heading leads the answer. */
  leads: boolean;
  /** The anchor's section, its passages in document order (at least the anchor). */
  section: readonly ScoredPassage[];
  /**
   * For a how-question about a property of a class ({@link ownerHeadingPath}),
   * the class's section, its passages in document order; else empty.
   */
  ownerSection: readonly ScoredPassage[];
  /** The question's analyzed terms (only their presence is read). */
  weights: ReadonlyMap<string, number>;
  /** Whether to show a code example. */
  howQuestion: boolean;
}

/** One run of the answer: sentences of one passage, optionally led by a heading. */
interface Run {
  passage: ScoredPassage;
  /** The passage's rank in the retrieval (0 = first). */
  rank: number;
  lead?: string;
  sentences: Sentence[];
}

/**
 * @returns the answer text with `[n]` markers and the passages cited, in marker order
 */
export function writeAnswerText(input: AnswerTextInput): { text: string; cited: ScoredPassage[] } {
  const runs = input.leads ? ledRuns(input) : plainRuns(input);
  const owner = input.howQuestion ? describeSection(input.ownerSection) : undefined;
  const ownerHeading = input.ownerSection[0]?.headingPath.at(-1);
  if (owner && ownerHeading !== undefined && !runs.some((run) => run.passage.chunkId === owner.passage.chunkId)) {
    runs.push({ passage: owner.passage, rank: Number.MAX_SAFE_INTEGER, sentences: owner.sentences, lead: leadOf(ownerHeading) });
  }
  const cited: ScoredPassage[] = [];
  const citationOf = (passage: ScoredPassage): number => {
    const index = cited.findIndex((known) => known.chunkId === passage.chunkId);
    return index >= 0 ? index + 1 : cited.push(passage);
  };

  let text = '';
  let lastPassage: ScoredPassage | undefined;
  for (const run of runs) {
    const sentences: string[] = [];
    const render = (candidate: readonly string[], index: number): string =>
      `${run.lead ? `${run.lead}: ` : ''}${withMarker(candidate.join(' '), index)}`;
    for (const [position, sentence] of run.sentences.entries()) {
      const candidate = [...sentences, quote(withItemName(sentence, run.sentences[position - 1]))];
      const piece = render(candidate, cited.length + 1);
      // The answer's first sentence is always quoted (a sentence is at most 400 characters: text/sentences.ts).
      if (text === '' && sentences.length === 0) sentences.push(...candidate);
      else if ((text === '' ? 0 : text.length + 1) + piece.length <= MAX_ANSWER_CHARACTERS) sentences.push(...candidate.slice(-1));
    }
    if (sentences.length === 0) continue;
    const piece = render(sentences, citationOf(run.passage));
    text = text === '' ? piece : `${text} ${piece}`;
    lastPassage = run.passage;
  }

  for (const passage of [...cited]) {
    const note = deprecationNote(passage, [...input.section, ...input.ownerSection]);
    if (note) text = `${text} ${withMarker(quote(note), citationOf(passage))}`;
  }

  if (input.howQuestion) {
    const example = findCodeExample([...sectionInOrder(input.section, input.anchor), ...input.ownerSection]);
    if (example) {
      const known = cited.findIndex((passage) => passage.chunkId === example.passage.chunkId);
      const sameAsLast = lastPassage?.chunkId === example.passage.chunkId;
      const introduction = sameAsLast ? '' : `Example [${known >= 0 ? known + 1 : cited.length + 1}]:\n\n`;
      const fenced = fenceCodeExample(example.code, MAX_ANSWER_CHARACTERS - text.length - 2 - introduction.length);
      if (fenced) {
        citationOf(example.passage);
        text = `${text}\n\n${introduction}${fenced}`;
      }
    }
  }
  return { text, cited };
}

/**
 * For a quoted passage whose section the docs mark deprecated
 * (engine/passages/deprecation.ts), the docs' notice under the section's name:
 * "`fs.exists(path, callback)` is deprecated: Use `fs.stat()` or
 * `fs.access()` instead." (the notice's own status line is never quoted).
 */
function deprecationNote(passage: ScoredPassage, section: readonly ScoredPassage[]): string | undefined {
  const deprecation = sectionDeprecation(passage, section);
  const heading = passage.headingPath.at(-1);
  if (!deprecation || heading === undefined) return undefined;
  const rest = deprecation.notice.replace(/^Deprecated\b\s*/i, '');
  const said = rest === '' ? '.' : /^[:.,;]/.test(rest) ? rest : `: ${rest}`;
  return `${readHeading(heading).text} is deprecated${said}${/[.!?]$/.test(said) ? '' : '.'}`;
}

/** The section's passages with `passage` among them (added when the store's read missed it), in document order. */
function sectionInOrder(section: readonly ScoredPassage[], passage: ScoredPassage): ScoredPassage[] {
  const passages = section.some((known) => known.chunkId === passage.chunkId) ? [...section] : [...section, passage];
  return passages.sort((left, right) => left.chunkId - right.chunkId);
}

/** Runs of an answer led by the anchor's heading (item 1 of the module's documentation). */
function ledRuns(input: AnswerTextInput): Run[] {
  let runs = chosenRuns(input.selected);
  const anchorRun = runs.find((run) => run.passage.chunkId === input.anchor.chunkId)!;
  runs = [anchorRun, ...runs.filter((run) => run !== anchorRun)];
  const lead = leadOf(input.anchor.headingPath.at(-1)!);
  const description = describeSection(sectionInOrder(input.section, input.anchor));
  if (description) {
    // The heading and the description say what the API is: details of options the question does not name are left to the citation.
    for (const run of runs) run.sentences = run.sentences.filter((sentence) => !isOtherOption(sentence, input.weights));
    // The description opens the answer; sentences of its passage already chosen follow it, not repeated.
    const isDescription = (sentence: Sentence): boolean => description.sentences.some((known) => known.position === sentence.position);
    const descriptionRun = runs.find((run) => run.passage.chunkId === description.passage.chunkId);
    if (descriptionRun) {
      descriptionRun.sentences = [...description.sentences, ...descriptionRun.sentences.filter((sentence) => !isDescription(sentence))];
      runs = [descriptionRun, ...runs.filter((run) => run !== descriptionRun)];
    } else {
      runs.unshift({ passage: description.passage, rank: anchorRun.rank, sentences: description.sentences });
    }
  }
  runs = runs.filter((run) => run.sentences.length > 0);
  runs[0]!.lead = lead;
  for (const run of runs) {
    run.lead ??= otherSectionLead(run.passage, input.anchor);
    addAntecedents(run);
  }
  return runs;
}

/**
 * Runs of the chosen sentences in the passages' retrieval order; an answer
 * opening with an option bullet gets its heading as lead, one opening with
 * a dangling pronoun the sentences it points at (item 2 of the module's
 * documentation).
 */
function plainRuns(input: AnswerTextInput): Run[] {
  const runs = chosenRuns(input.selected).sort((left, right) => left.rank - right.rank);
  const first = runs[0]!;
  const opening = first.sentences[0]!;
  if (opening.kind === 'option' && first.passage.headingPath.length >= 2) first.lead = leadOf(first.passage.headingPath.at(-1)!);
  else if (DANGLING_PRONOUN.test(opening.text)) {
    const before = antecedents(first.passage, opening);
    first.sentences.unshift(...before);
    // Nothing before it in the passage: in technical documentation the section's heading names what the
    // pronoun points at, elsewhere (articles headed "Paragraph 3") the document's title does.
    if (before.length === 0) {
      const heading = analyzePassage(first.passage).mentionsCode ? first.passage.headingPath.at(-1) : first.passage.headingPath[0];
      if (heading !== undefined && heading.trim() !== '') first.lead = leadOf(heading);
    }
  }
  for (const run of runs.slice(1)) run.lead = otherSectionLead(run.passage, first.passage);
  return runs;
}

/**
 * The lead of a run from another section than the answer's first: its
 * heading when the heading names an API (engine/passages/section-heading.ts:
 * a signature, a `Class:`/`Event:` name, a name in code), so that the reader
 * knows what the sentences describe; none for a worded heading or a passage
 * of the first run's own section.
 */
function otherSectionLead(passage: ScoredPassage, first: ScoredPassage): string | undefined {
  if (passage.headingPath.length < 2 || (passage.docId === first.docId && sameHeadingPath(passage.headingPath, first.headingPath))) return undefined;
  const heading = readHeading(passage.headingPath.at(-1)!);
  return heading.kind === 'prose' ? undefined : leadOf(heading.text);
}

/** The chosen sentences as runs, one per passage, each run's sentences in passage order. */
function chosenRuns(selected: readonly QuotedSentence[]): Run[] {
  const runs: Run[] = [];
  for (const { sentence, passage, rank } of selected) {
    const run = runs.find((known) => known.passage.chunkId === passage.chunkId);
    if (run) run.sentences.push(sentence);
    else runs.push({ passage, rank, sentences: [sentence] });
  }
  for (const run of runs) run.sentences.sort((left, right) => left.position - right.position);
  return runs;
}

/**
 * Puts before each sentence of the run that opens with a dangling pronoun
 * the sentences it points at ({@link antecedents}), unless the sentence
 * before it is already quoted or it directly follows the run's heading
 * lead, which names what the pronoun points at.
 */
function addAntecedents(run: Run): void {
  const sentences: Sentence[] = [];
  for (const sentence of run.sentences) {
    const previous = sentences.at(-1);
    const named = run.lead !== undefined && sentences.length === 0;
    if (DANGLING_PRONOUN.test(sentence.text) && !named && previous?.position !== sentence.position - 1) {
      sentences.push(...antecedents(run.passage, sentence).filter((antecedent) => !sentences.includes(antecedent)));
    }
    sentences.push(sentence);
  }
  run.sentences = sentences;
}

/** Up to {@link MAX_ANTECEDENTS} sentences before `sentence` in its passage, stopping after one that does not dangle. */
function antecedents(passage: ScoredPassage, sentence: Sentence): Sentence[] {
  const sentences = analyzePassage(passage).sentences.map((analyzed) => analyzed.sentence);
  const before: Sentence[] = [];
  for (let position = sentence.position - 1; position >= 0 && before.length < MAX_ANTECEDENTS; position -= 1) {
    const previous = sentences[position]!;
    if (previous.kind === 'option' || previous.kind === 'status') break;
    before.unshift(previous);
    if (!DANGLING_PRONOUN.test(previous.text)) break;
  }
  return before;
}

/** An option item that is only a type (`{string}`): a property's type line. */
const BARE_TYPE_LINE = /^\{[^}]*\}$/;

/**
 * The sentence that says what the section's subject does: the first prose
 * sentence of the section, with the next prose sentence of its passage
 * when it is short. A paragraph standing between two option items continues the
 * first item (a list item of several paragraphs) and describes an option,
 * not the subject, so it is passed over - unless the item is a property's
 * bare type line (`- {string}`), which has no text for it to continue, or
 * the paragraph ends in a colon and so introduces the items after it
 * ("Provides the platform-specific path segment separator:" above "- `\` on
 * Windows").
 */
function describeSection(section: readonly ScoredPassage[]): { passage: ScoredPassage; sentences: Sentence[] } | undefined {
  const blocks: { passage: ScoredPassage; sentences: Sentence[] }[] = [];
  for (const passage of section) {
    for (const { sentence } of analyzePassage(passage).sentences) {
      const last = blocks.at(-1);
      if (last && last.passage === passage && last.sentences[0]!.block === sentence.block) last.sentences.push(sentence);
      else blocks.push({ passage, sentences: [sentence] });
    }
  }
  const kindOf = (index: number): Sentence['kind'] | undefined => blocks[index]?.sentences[0]!.kind;
  let insideOptions = false;
  for (const [index, block] of blocks.entries()) {
    const kind = kindOf(index);
    if (kind !== 'prose') {
      insideOptions = kind === 'option' && !BARE_TYPE_LINE.test(block.sentences[0]!.text);
      continue;
    }
    if (insideOptions && kindOf(index + 1) === 'option' && !block.sentences.at(-1)!.text.endsWith(':')) continue;
    insideOptions = false;
    const first = block.sentences[0]!;
    const following = blocks[index + 1];
    const next = block.sentences[1] ?? (following?.passage === block.passage && kindOf(index + 1) === 'prose' ? following.sentences[0] : undefined);
    return { passage: block.passage, sentences: first.text.length < SHORT_DESCRIPTION && next ? [first, next] : [first] };
  }
  return undefined;
}

/** Longest {@link sectionSnippet}, in characters: a line under a link, as a search result's snippet is. */
export const SNIPPET_CHARACTERS = 160;

/**
 * What a section says it is about, to show beside a link to it (an
 * abstention's related sections, engine/abstention.ts): the sentence that
 * describes the section, as an answer led by its heading quotes it
 * ({@link describeSection}), followed by the list it introduces when it
 * ends in a colon ("Provides the platform-specific path segment separator:
 * `\` on Windows; `/` on POSIX"), as markdown, cut at a word with an
 * ellipsis past {@link SNIPPET_CHARACTERS}.
 *
 * @param section the section's passages as the store gave them (any order)
 * @param passage the passage of the section that was retrieved, counted in when the section misses it
 * @returns undefined when the section has no prose sentence
 */
export function sectionSnippet(section: readonly ScoredPassage[], passage: ScoredPassage): string | undefined {
  const description = describeSection(sectionInOrder(section, passage));
  if (!description) return undefined;
  const described = description.sentences.map((sentence) => sentence.text).join(' ');
  const items = introducedItems(description.passage, description.sentences.at(-1)!);
  // The items read as one run, separated by semicolons and without their closing periods: "separator: `\` on Windows; `/` on POSIX".
  const run = items.map((item) => item.text.replace(/[.;,]$/, '')).join('; ');
  const text = clipAtWord(items.length > 0 ? `${described} ${run}` : described, SNIPPET_CHARACTERS);
  // A cut after a comma or colon drops it before the ellipsis.
  return quote(text.replace(/[\s,;:]+…$/, '…'));
}

/**
 * The list a sentence ending in a colon introduces: the first sentence of
 * each list item (or option item) right after it in its passage, up to the
 * next paragraph or code - "`\` on Windows", "`/` on POSIX" after
 * "Provides the platform-specific path segment separator:". None for a
 * sentence that does not end in a colon.
 */
function introducedItems(passage: ScoredPassage, sentence: Sentence): Sentence[] {
  if (!sentence.text.endsWith(':')) return [];
  const items: Sentence[] = [];
  let block = sentence.block;
  for (const { sentence: next } of analyzePassage(passage).sentences.slice(sentence.position + 1)) {
    // An item's further sentences are left out: each item shows as its first.
    if (items.length > 0 && next.block === block) continue;
    if ((next.kind !== 'list-item' && next.kind !== 'option') || next.block !== block + 1) break;
    items.push(next);
    block = next.block;
  }
  return items;
}

/**
 * The heading path of the class that owns the property a passage documents:
 * a section headed by a property (`` `stats.size` ``, engine/passages/section-heading.ts
 * kind `code`) directly under a `Class:` or `Interface:` heading. A
 * property's section says what the value is, not how to get the object that
 * holds it; the class's description does ("Objects returned from
 * `fs.stat()` ... are of this type").
 *
 * @returns the owner's heading path, or undefined when the passage documents no property of a class
 */
export function ownerHeadingPath(passage: ScoredPassage): string[] | undefined {
  const heading = passage.headingPath.at(-1);
  const parent = passage.headingPath.at(-2);
  if (passage.headingPath.length < 3 || heading === undefined || parent === undefined) return undefined;
  if (readHeading(heading).kind !== 'code') return undefined;
  const owner = readHeading(parent);
  return owner.kind === 'labelled' && /^(?:class|interface)$/i.test(owner.label!) ? passage.headingPath.slice(0, -1) : undefined;
}

/** Whether a sentence details an option whose name holds none of the question's terms. */
function isOtherOption(sentence: Sentence, weights: ReadonlyMap<string, number>): boolean {
  if (sentence.kind !== 'option') return false;
  return !identifierTerms(sentence.option ?? '').some((term) => weights.has(term));
}

/**
 * A sentence of an option item (text/sentences.ts: a list item naming a
 * parameter, an option, a field or an error code) that does not say the
 * item's name - a later sentence of the item, "This is encountered when
 * opening many files at once" of `` `EMFILE` `` - as the answer quotes it:
 * led by the name in code (`` `EMFILE`: This is encountered ... ``), unless
 * the sentence quoted just before it is of the same item. Without the name
 * a reader cannot tell which item the sentence is about, and two such
 * sentences of different items read as one statement.
 */
function withItemName(sentence: Sentence, previous: Sentence | undefined): string {
  const name = sentence.option;
  if (sentence.kind !== 'option' || name === undefined || previous?.block === sentence.block) return sentence.text;
  if (sentence.text.includes(name)) return sentence.text;
  return `\`${name}\`: ${sentence.text}`;
}

/** A heading as an answer's lead: code as it is (in backticks), words in bold. */
function leadOf(heading: string): string {
  const read = readHeading(heading);
  return escapeLiteralMarkers(read.kind === 'prose' ? `**${read.text.replace(/[.:]+$/, '')}**` : read.text);
}

/**
 * A sentence as the answer quotes it: bracketed numbers escaped so they are
 * not read as markers, and type references of API reference generators
 * (`{fs.Stats}`, `{string|Buffer}`, JSDoc and the Node.js docs' markup)
 * shown as the inline code they stand for.
 */
function quote(sentence: string): string {
  let result = '';
  let last = 0;
  for (const span of sentence.matchAll(/`[^`]*`/g)) {
    result += sentence.slice(last, span.index).replace(TYPE_REFERENCE, '`$1`') + span[0];
    last = span.index + span[0].length;
  }
  return escapeLiteralMarkers(result + sentence.slice(last).replace(TYPE_REFERENCE, '`$1`'));
}

/** A type reference in braces: `{fs.Stats}`, `{string|Buffer|URL}`, `{string[]}`. */
const TYPE_REFERENCE = /\{([A-Za-z_$][\w$.<>]*(?:\[\])?(?:\|[A-Za-z_$][\w$.<>]*(?:\[\])?)*)\}/g;

/** Puts ` [n]` before the text's closing punctuation (replacing any space before it), or after the text when it has none. */
function withMarker(text: string, index: number): string {
  const match = /([.?!:;]+)$/.exec(text);
  if (!match) return `${text} [${index}]`;
  return `${text.slice(0, match.index).trimEnd()} [${index}]${match[1]}`;
}
