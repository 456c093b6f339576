// A scripted stand-in for the kb-widget API inside web-test-runner's dev
// server (same origin as the test page): real HTTP, the real SSE framing and
// refusal bodies of docs/specification.md, each answer chosen by the question
// and each refusal by the token. Widget tests use it to drive every frame
// sequence and refusal through the element's real networking.

/** @param {string} type @param {Record<string, unknown>} fields */
const frame = (type, fields = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const citation = (index, docId, text, extra = {}) => ({ index, doc_id: docId, kb_id: 'docs', source_span: { ref: `ref-${index}` }, ...(text ? { text } : {}), ...extra });
const tokens = (text) => (text.match(/\s*\S+/g) ?? []).map((piece) => frame('token', { text: piece }));

/** Frame lists by question. A number in the list is a pause in milliseconds. */
export const SCRIPTS = {
  answer: [
    frame('citations', { citations: [citation(1, 'fs.md', 'Use mkdir with recursive: true.')] }),
    ...tokens('Use `mkdir` with the **recursive** option [1].'),
    frame('suggestions', { questions: ['How do I remove a directory?', 'How do I read a file?'] }),
    frame('done', { abstained: false }),
  ],
  reset: [...tokens('A withdrawn draft [1]'), frame('reset'), ...tokens('The corrected answer.'), frame('done', { abstained: false })],
  'abstain after tokens': [...tokens('A partial answer'), frame('abstain', { answer: 'I could not find that in the docs.' }), frame('done', { abstained: true })],
  'error mid-answer': [...tokens('Half an answer'), frame('error', { code: 'generation_failed', message: 'Generation failed' })],
  truncated: [...tokens('Cut off before the')],
  'unknown frame': [frame('mystery', { secret: 'ignore me' }), ': a comment\n\n', ...tokens('Still fine.'), frame('done', { abstained: false })],
  slow: [...Array.from({ length: 40 }, (_, index) => [150, frame('token', { text: ` word${index}` })]).flat(), frame('done', { abstained: false })],
  // Two sections of one titled document and an untitled one, as the server sends them.
  titled: [
    frame('citations', {
      citations: [
        citation(1, 'fs.md', 'Intro to directories. Use `fs.mkdir()` with\n`recursive: true` to create missing parents. Unrelated closing words here.', {
          title: 'File system › fs.mkdir()',
          url: 'https://docs.example.com/fs#fs-mkdir',
        }),
        citation(2, 'fs.md', 'Each call of `fs.stat()` returns an `fs.Stats` object.', { title: 'File system › fs.stat()', url: 'https://docs.example.com/fs#fs-stat' }),
        citation(3, 'api/child_process.md'),
      ],
    }),
    ...tokens('Use `fs.mkdir()` with `recursive: true` to create missing parents [1]. Each call of `fs.stat()` returns an `fs.Stats` object [2]. See [3].'),
    frame('done', { abstained: false }),
  ],
  code: [
    ...tokens('Create it like this:'),
    frame('token', { text: "\n\n```js\nfs.mkdirSync('a/b', { recursive: true });\n```\n" }),
    frame('suggestions', { questions: ['How do I use `readline.createInterface()`?'] }),
    frame('done', { abstained: false }),
  ],
  abstain: [frame('abstain', { answer: 'I could not find that in the docs.' }), frame('done', { abstained: true })],
  // A curated answer whose done frame names its provenance (sent back with feedback).
  curated: [
    frame('citations', { citations: [citation(1, 'fs.md', 'Pass recursive: true.'), citation(2, 'path.md')] }),
    ...tokens('Pass `recursive: true` [1], see also [2].'),
    frame('done', { abstained: false, provenance: 'qa_shortcut' }),
  ],
  // An answer longer than the panel, as real ones are: a first sentence, paragraphs, code, sources and follow-ups.
  'long with code': [
    frame('citations', { citations: [citation(1, 'fs.md', 'Use mkdir with recursive: true.'), citation(2, 'path.md', 'Join paths with path.join().')] }),
    ...tokens('First line of the answer [1].'),
    ...tokens(Array.from({ length: 12 }, (_, index) => `\n\nParagraph ${index} explains one more detail of creating directories with the file system module [2].`).join('')),
    frame('token', { text: `\n\n\`\`\`js\n${Array.from({ length: 10 }, (_, index) => `fs.mkdirSync('dir${index}', { recursive: true });`).join('\n')}\n\`\`\`\n` }),
    frame('suggestions', { questions: ['How do I remove a directory?'] }),
    frame('done', { abstained: false }),
  ],
  // A server that freezes part-way: the words so far, then nothing for a minute.
  'frozen mid-answer': [...tokens('Half an answer'), 60_000],
  // A server that sends its heartbeat (`: ping`) and nothing else for a while, then answers.
  heartbeats: [...Array.from({ length: 6 }, () => [100, ': ping\n\n']).flat(), ...tokens('Answered after the heartbeats.'), frame('done', { abstained: false })],
  long: [...tokens(Array.from({ length: 60 }, (_, index) => `Sentence number ${index} of a long answer.`).join(' ')), frame('done', { abstained: false })],
};

/** Citations whose URLs a visitor may follow or not, with the page's origin (`http://localhost:port`). */
const linkSafety = (origin) => [
  frame('citations', {
    citations: [
      citation(1, 'a.md', '', { title: 'Script', url: 'javascript:window.__kbPwned=1' }),
      citation(2, 'b.md', '', { title: 'Other site over HTTP', url: 'http://elsewhere.test/b' }),
      citation(3, 'c.md', '', { title: 'This site over HTTP', url: `${origin}/docs/c` }),
      citation(4, 'd.md', '', { title: 'Data', url: 'data:text/html,hi' }),
      citation(5, 'e.md', '', { title: 'Not a URL', url: 'docs/e' }),
    ],
  }),
  ...tokens('Links [1] [2] [3] [4] [5].'),
  frame('done', { abstained: false }),
];

/** Hostile answer texts: each must render inert. */
export const HOSTILE = [
  '<script>window.__kbPwned = 1</script> script tag',
  '<img src="https://evil.test/x.png" onerror="window.__kbPwned = 1"> image tag',
  '[click me](javascript:window.__kbPwned=1) javascript link',
  '![pixel](https://evil.test/pixel.png) markdown image',
  '<a href="https://evil.test" onclick="window.__kbPwned=1">html link</a>',
  '[data](data:text/html,<script>window.__kbPwned=1</script>) data link',
  '<iframe src="https://evil.test"></iframe> frame',
  '<style>*{display:none}</style> style',
];

const refusals = {
  expired: [401, 'token_expired', 'The widget token expired'],
  stale: [401, 'token_expired', 'The widget token expired'],
  revoked: [401, 'token_revoked', 'The widget token has been revoked'],
  'not-allowed': [403, 'origin_not_allowed', 'Origin is not allowed for this token'],
  busy: [429, 'rate_limited', 'Too many requests'],
  down: [503, 'unavailable', 'Temporarily unavailable'],
  bogus: [401, 'invalid_token', 'The widget token is not valid'],
  'other-kb': [403, 'kb_mismatch', 'The widget token is bound to another knowledge base'],
  huge: [413, 'payload_too_large', 'The request body is larger than the 16 KiB limit'],
};

/** Requests received, for assertions (`GET /scripted/requests`, `POST /scripted/reset`). */
let received = [];
/**
 * Feedback received (`GET /scripted/feedback`): `{token, body}` each. The
 * endpoint answers 204, refuses by token as the stream does, and answers 503
 * to feedback on the question `feedback fails`.
 */
let feedback = [];
/** Token `busy-once` is refused (429, `Retry-After: 2`) on its first request after a reset, then answered. */
let busyOnceRefused = false;

/** @type {import('@web/dev-server-core').Middleware} */
export async function scriptedAnswers(context, next) {
  if (context.path === '/scripted/requests') {
    context.body = received;
    return;
  }
  if (context.path === '/scripted/feedback') {
    context.body = feedback;
    return;
  }
  if (context.path === '/scripted/reset') {
    received = [];
    feedback = [];
    busyOnceRefused = false;
    context.body = 'ok';
    return;
  }
  const match = /^\/kb-api\/api\/v1\/kb\/([^/]+)\/widget\/(query\/stream|feedback)$/.exec(context.path);
  if (!match || context.method !== 'POST') return next();
  const body = JSON.parse(await readBody(context.req));
  const token = (context.get('authorization').match(/^Bearer (.+)$/) ?? [])[1] ?? '';
  if (match[2] === 'feedback') {
    const [status, code, detail] = refusals[token] ?? (body.question === 'feedback fails' ? [503, 'unavailable', 'Temporarily unavailable'] : [204]);
    if (status === 204) feedback.push({ token, body });
    context.status = status;
    if (code) {
      context.type = 'application/problem+json';
      context.body = JSON.stringify({ type: `urn:kb-widget:problem:${code}`, title: code, status, detail, code });
    }
    return;
  }
  received.push({ question: body.question, token, accept: context.get('accept') });
  const refusal = token === 'busy-once' && !busyOnceRefused ? [429, 'rate_limited', 'Too many requests', '2'] : refusals[token];
  if (token === 'busy-once') busyOnceRefused = true;
  if (refusal) {
    const [status, code, detail, retryAfter = '7'] = refusal;
    context.status = status;
    context.type = 'application/problem+json';
    if (status === 429) context.set('Retry-After', retryAfter);
    context.body = JSON.stringify({ type: `urn:kb-widget:problem:${code}`, title: code, status, detail, code });
    return;
  }
  // A frozen server: the request is accepted and nothing more comes, not even the headers, until the client gives up.
  if (body.question === 'frozen') {
    await new Promise((resolve) => context.req.socket.once('close', resolve));
    // Nothing is written (the client is gone); the status only keeps the test runner from reporting a 404.
    context.status = 200;
    context.respond = false;
    return;
  }
  const hostile = /^hostile (\d+)$/.exec(body.question);
  const script = hostile
    ? [frame('token', { text: HOSTILE[Number(hostile[1])] }), frame('done', { abstained: false })]
    : body.question === 'link safety'
      ? linkSafety(context.origin)
      : (SCRIPTS[body.question] ?? SCRIPTS.answer);
  context.status = 200;
  context.set('Content-Type', 'text/event-stream; charset=utf-8');
  context.set('Cache-Control', 'no-cache, no-transform');
  const { PassThrough } = await import('node:stream');
  const stream = new PassThrough();
  context.body = stream;
  void (async () => {
    for (const step of script) {
      if (stream.destroyed) return;
      if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
      else stream.write(step);
    }
    stream.end();
  })();
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}
