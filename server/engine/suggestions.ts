import type { ScoredPassage } from '../store/store.ts';

/**
 * Follow-up questions (docs/design-decisions.md "The engine": from curated pairs and the
 * headings of retrieved passages), curated ones first, in plain words.
 * Suggestions only ever come from material inside the caller's reach:
 * retrieved passages and pairs already filtered.
 */

/** Most follow-up questions offered. */
export const MAX_SUGGESTIONS = 3;

/**
 * Headings that name a part of a page, not a subject a visitor asks about
 * (compared in lower case, without punctuation): never suggested.
 */
const GENERIC_HEADINGS: ReadonlySet<string> = new Set([
  'introduction', 'overview', 'summary', 'example', 'examples', 'usage', 'notes', 'note', 'see also', 'related',
  'related links', 'what s next', 'whats next', 'next steps', 'before you begin', 'prerequisites', 'objectives',
  'cleaning up', 'clean up', 'background', 'motivation', 'caveats', 'limitations', 'api', 'reference', 'index',
  'contents', 'table of contents', 'faq', 'glossary', 'changelog', 'history', 'stability', 'deprecated apis',
  'further reading', 'feedback', 'getting started', 'description', 'options', 'synopsis', 'parent topic', 'use cases',
]);

/**
 * Verbs that start task headings in software documentation ("Create a Pod",
 * "Configuring TLS"), so a task heading can be asked as "How do I ...?".
 * Their -ing forms are derived by {@link gerundsOf}.
 */
const TASK_VERBS = [
  'add', 'allocate', 'apply', 'assign', 'choose', 'clean', 'configure', 'connect', 'convert', 'create', 'debug',
  'declare', 'define', 'delete', 'deploy', 'detect', 'disable', 'enable', 'encrypt', 'expose', 'extend', 'find',
  'generate', 'get', 'handle', 'install', 'manage', 'migrate', 'monitor', 'mount', 'open', 'protect', 'read',
  'remove', 'rename', 'replace', 'restart', 'restrict', 'resize', 'run', 'scale', 'secure', 'send', 'specify',
  'troubleshoot', 'validate', 'verify', 'write',
];

/**
 * Verbs that are also common nouns of documentation headings ("Access
 * control", "Use cases"): a heading starting with their bare form is a task
 * only when a determiner or particle follows ("Use a ConfigMap", "Set up
 * TLS"); their -ing forms always start a task ("Using kubectl").
 */
const NOUN_LIKE_TASK_VERBS = [
  'access', 'build', 'change', 'check', 'control', 'copy', 'import', 'limit', 'list', 'load', 'move', 'pass',
  'register', 'roll', 'schedule', 'set', 'share', 'start', 'stop', 'test', 'update', 'upgrade', 'use', 'view',
  'watch', 'work',
];

/** Words after which a noun-like verb reads as an imperative. */
const IMPERATIVE_FOLLOWERS = new Set(['a', 'an', 'the', 'your', 'my', 'up', 'out', 'down', 'back', 'all', 'multiple', 'one', 'another', 'it', 'this', 'that']);

/**
 * English -ing forms of a verb: a final silent e dropped (create → creating),
 * and, for a verb ending in one vowel and a consonant, with and without that
 * consonant doubled (run → running, debug → debugging, open → opening); the
 * form that is not English never occurs in a heading.
 */
function gerundsOf(verb: string): string[] {
  if (/[^aeiou]e$/.test(verb)) return [`${verb.slice(0, -1)}ing`];
  if (/[aeiou][bdglmnprt]$/.test(verb) && !/[aeiou]{2}.$/.test(verb)) return [`${verb}ing`, `${verb}${verb.at(-1)}ing`];
  return [`${verb}ing`];
}

/** What a heading's first word says about it: the base verb, and whether a determiner must follow. */
interface TaskVerb {
  verb: string;
  needsFollower: boolean;
}

/** A heading's first word, lower-cased -> its {@link TaskVerb}. */
const TASK_VERB_OF: ReadonlyMap<string, TaskVerb> = new Map<string, TaskVerb>([
  ...[...TASK_VERBS, ...NOUN_LIKE_TASK_VERBS].flatMap((verb) => gerundsOf(verb).map((gerund): [string, TaskVerb] => [gerund, { verb, needsFollower: false }])),
  ...TASK_VERBS.map((verb): [string, TaskVerb] => [verb, { verb, needsFollower: false }]),
  ...NOUN_LIKE_TASK_VERBS.map((verb): [string, TaskVerb] => [verb, { verb, needsFollower: true }]),
]);

/**
 * Turns a section heading into a question a visitor might ask next, in plain
 * words (no markdown: the widget shows suggestions as text):
 * - an API signature (`` `fs.mkdtemp(prefix[, options])` ``) → "How do I use fs.mkdtemp()?";
 * - `Class: X` → "What is X?"; `Event: X` → "When is the X event emitted?";
 * - a task ("Create a Pod", "Configuring TLS") → "How do I create a Pod?";
 * - a heading that is already a question → itself;
 * - a subject ("Pod lifecycle") → "What is Pod lifecycle?" ("What are ..." for a plural);
 * - a generic heading ("Examples", "Before you begin") → undefined: not suggested.
 *
 * @param heading the passage's innermost heading
 * @returns the question, or undefined when the heading names no subject
 */
export function headingToQuestion(heading: string): string | undefined {
  const trimmed = heading.trim();
  const signature = /^`?(?:new\s+)?([\w$.[\]'"]+?)\s*\(.*\)`?$/.exec(trimmed);
  if (signature && /[.(]/.test(trimmed)) return `How do I use ${signature[1]}()?`;
  const text = plainText(trimmed);
  if (text === '' || GENERIC_HEADINGS.has(text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim())) return undefined;
  const labelled = /^(Class|Event|Interface|Static method|Module):\s*(.+)$/i.exec(text);
  if (labelled) {
    const [, label, subject] = labelled;
    if (label!.toLowerCase() === 'event') return `When is the ${subject} event emitted?`;
    return `What is ${subject}?`;
  }
  if (text.endsWith('?')) return text;
  const subject = text.replace(/[.!:;,]+$/, '');
  const [first = '', ...rest] = subject.split(/\s+/);
  const task = TASK_VERB_OF.get(first.toLowerCase());
  if (task !== undefined && rest.length > 0 && (!task.needsFollower || IMPERATIVE_FOLLOWERS.has(rest[0]!.toLowerCase()))) {
    return `How do I ${task.verb} ${rest.join(' ')}?`;
  }
  // Another -ing word opening the heading is most likely a task whose verb is not known: no well-formed question.
  if (/^[a-z]+ing$/i.test(first) && rest.length > 0 && !/^(string|thing|setting|warning|logging|routing|networking|scheduling|caching)s?$/i.test(first)) {
    return undefined;
  }
  const plural = /[^s]s$/.test(subject) && !/\b(is|was|this|status|process|class|access)$/i.test(subject);
  return `What ${plural ? 'are' : 'is'} ${subject}?`;
}

/** Heading text without inline markdown: backticks, emphasis markers, link brackets. */
function plainText(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/(^|\s)_+|_+(\s|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * @param question the question asked
 * @param related curated questions similar to it, best first
 * @param passages retrieved passages, best first
 * @param cited the passages the answer cites (their headings are not suggested)
 * @returns at most {@link MAX_SUGGESTIONS} distinct questions, never the question asked
 */
export function suggestFollowUps(
  question: string,
  related: readonly string[],
  passages: readonly ScoredPassage[],
  cited: readonly ScoredPassage[],
): string[] {
  const citedHeadings = new Set(cited.map((passage) => passage.headingPath.at(-1)));
  const seen = new Set([normalize(question)]);
  const suggestions: string[] = [];
  const offer = (candidate: string): void => {
    const key = normalize(candidate);
    if (suggestions.length >= MAX_SUGGESTIONS || seen.has(key)) return;
    seen.add(key);
    suggestions.push(candidate);
  };
  for (const candidate of related) offer(candidate);
  for (const passage of passages) {
    const heading = passage.headingPath.at(-1);
    if (heading === undefined || passage.headingPath.length < 2 || citedHeadings.has(heading)) continue;
    const asked = headingToQuestion(heading);
    if (asked !== undefined) offer(asked);
  }
  return suggestions;
}

function normalize(question: string): string {
  return question.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
