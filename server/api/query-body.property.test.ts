import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

let fixture: WidgetFixture;
let token: string;
beforeAll(async () => {
  fixture = await createWidgetFixture();
  ({ token } = await fixture.issue());
});
afterAll(async () => {
  await fixture.close();
});

/** Bodies shaped like requests, with every field of every type. */
const requestLike = fc.record(
  {
    question: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue()),
    top_k: fc.oneof(fc.integer({ min: -5, max: 30 }), fc.double(), fc.jsonValue()),
    options: fc.jsonValue(),
    conversation_id: fc.jsonValue(),
    query: fc.string(),
  },
  { requiredKeys: [] },
);

test.each(['query', 'query/stream'] as const)(
  'POST /widget/%s with random JSON bodies: never a 5xx, never a stack trace',
  async (path) => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }), requestLike), async (body) => {
        const response = await fixture.post(path, JSON.stringify(body), { token });
        const text = await response.text();

        expect(response.status).toBeLessThan(500);
        expect([200, 400, 413]).toContain(response.status);
        expect(text).not.toMatch(/\n\s+at [\w.<>]+ \(|node_modules/);
      }),
      { numRuns: 120 },
    );
  },
  60_000,
);
