import { fetchModel, modelFetchSettings } from '../server/embedding/model-fetch.ts';
import { defaultModel } from '../server/embedding/model-manifest.ts';
import { createDownloadProgress } from '../server/progress-bar.ts';

/**
 * `npm install` runs this (postinstall), and `npm run fetch-model` on demand:
 * brings the embedding model the manifest pins into `.models/` (or
 * KB_MODEL_CACHE), each file verified against its sha256, with a progress
 * bar. When no source can be reached it says so and exits 0: the install
 * succeeds, `npm start` tries again, and the server answers lexically until
 * it has the model. `--strict` exits 1 instead (CI, a deployment that must
 * have the model). KB_SKIP_MODEL_FETCH=1 skips it.
 */

const strict = process.argv.includes('--strict');
if (process.env.KB_SKIP_MODEL_FETCH === '1' && !strict) {
  process.stderr.write('kb-widget: KB_SKIP_MODEL_FETCH=1, the embedding model was not fetched\n');
  process.exit(0);
}
const model = defaultModel();
const settings = modelFetchSettings(process.env);
const bar = createDownloadProgress('Embedding model');
try {
  const result = await fetchModel(model, { ...settings, onProgress: bar.update });
  bar.stop();
  const how = result.fetched.length === 0 ? 'already fetched' : result.fetched.map(({ file, source }) => `${file} from ${source}`).join(', ');
  process.stderr.write(`kb-widget: embedding model ${model.id} (${model.variant}) verified in ${result.folder} (${how})\n`);
} catch (error) {
  bar.stop();
  process.stderr.write(
    `kb-widget: the embedding model could not be fetched. ${(error as Error).message}\n` +
      '  The server starts all the same, answering with lexical retrieval (BM25F) only, and tries again at each start.\n' +
      '  Set KB_MODEL_DIR to a folder holding the files, or HF_ENDPOINT / KB_MODEL_INDEX_URL to a mirror (docs/how-answers-are-made.md "The embedding model").\n',
  );
  process.exit(strict ? 1 : 0);
}
