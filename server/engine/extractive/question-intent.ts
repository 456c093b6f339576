/**
 * Whether a question asks *how* to do something, so that an answer from
 * documentation should show the section's code example
 * (engine/extractive/extractive-answerer.ts). Read from the question's wording alone:
 *
 * - a "how" question about doing: "how do I ...", "how to ...", "how can we
 *   ...", "how should I ..." (not "how do streams work?", which asks for an
 *   explanation, nor "how long/many/much ...", which ask for a quantity,
 *   unless the question also asks how to do something);
 * - a request for a way: "is there a way to ...", "I want to ...", "I need
 *   to ...", "what is the best way to ...";
 * - an imperative task, as people type into a search box: the question
 *   starts with a verb of {@link TASK_VERBS} ("read a file line by line",
 *   "delete a file").
 *
 * Other questions (what / why / when / which / is / does ...) ask for a fact
 * or a reason, and get no code.
 */

/**
 * Verbs that open the tasks of software documentation (in the base form an
 * imperative uses), as they appear in how-to titles and questions: file,
 * process, network, data and deployment operations. A general list, not
 * tuned to any question set; a word that is also a common noun at the start
 * of a question ("test results", "list of ...") is left out.
 */
export const TASK_VERBS: ReadonlySet<string> = new Set([
  'add', 'allow', 'append', 'apply', 'attach', 'authenticate', 'avoid', 'block', 'build', 'calculate', 'call',
  'cancel', 'capture', 'catch', 'change', 'check', 'clean', 'clear', 'close', 'compare', 'compile', 'compress',
  'compute', 'configure', 'connect', 'convert', 'copy', 'create', 'debug', 'decode', 'decompress', 'decrypt',
  'define', 'delete', 'deploy', 'detect', 'disable', 'download', 'drain', 'dump', 'emit', 'enable', 'encode',
  'encrypt', 'ensure', 'expose', 'extract', 'fetch', 'find', 'fix', 'force', 'fork', 'format', 'generate', 'get',
  'handle', 'hash', 'hide', 'ignore', 'import', 'increase', 'inspect', 'install', 'kill', 'launch', 'limit',
  'listen', 'load', 'lock', 'log', 'make', 'measure', 'merge', 'migrate', 'monitor', 'mount', 'move', 'open',
  'parse', 'pass', 'pipe', 'prevent', 'print', 'profile', 'read', 'receive', 'redirect', 'reduce', 'register',
  'reload', 'remove', 'rename', 'replace', 'request', 'reset', 'resize', 'resolve', 'restart', 'restrict', 'retry',
  'return', 'roll', 'rotate', 'run', 'save', 'scale', 'schedule', 'send', 'serve', 'set', 'setup', 'share', 'show',
  'sign', 'sort', 'spawn', 'split', 'start', 'stop', 'store', 'take', 'terminate', 'throttle', 'trace', 'track',
  'transform', 'trigger', 'turn', 'uninstall', 'unzip', 'update', 'upgrade', 'upload', 'use', 'validate', 'verify',
  'wait', 'watch', 'write', 'zip',
]);

/** "how" asking about doing: "how do I", "how can we", "how to", "how is it possible to" (not "how do streams work"). */
const HOW_TO_DO = /\bhow\s+(?:(?:do|can|could|should|would|might)\s+(?:i|we|you|one)|to|is\s+it\s+possible\s+to)\b/;
/** Ways of asking for a way to do something without "how". */
const WAY_TO_DO = /\b(?:(?:a|the|best|right|proper|correct|easiest|simplest)\s+way\s+to|i\s+(?:want|need|would\s+like|am\s+trying|'m\s+trying)\s+to|trying\s+to)\b/;
/** Words a typed request may start with before its verb. */
const POLITE_START = /^(?:please\s+|pls\s+)/;

/**
 * @param question the question as asked
 * @returns whether it asks how to do something (see the module's documentation)
 */
export function asksHow(question: string): boolean {
  const normalized = question.normalize('NFKC').toLowerCase().replace(/\u2019/g, "'").replace(/\s+/g, ' ').trim();
  if (HOW_TO_DO.test(normalized) || WAY_TO_DO.test(normalized)) return true;
  const firstWord = /^[a-z]+/.exec(normalized.replace(POLITE_START, ''))?.[0];
  return firstWord !== undefined && TASK_VERBS.has(firstWord);
}
