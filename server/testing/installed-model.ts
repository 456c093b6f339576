import { installedModelFolder } from '../embedding/model-files.ts';
import { modelFetchSettings } from '../embedding/model-fetch.ts';
import { defaultModel, type ModelSpec } from '../embedding/model-manifest.ts';

/**
 * The embedding model as `npm install` left it in the model cache, for the
 * tests that run the real model: they fail, not skip, when it is missing,
 * so that CI always runs it.
 *
 * @throws Error naming the model when its files are not in the cache
 * @throws ModelIntegrityError when a file there is not the pinned one
 */
export async function installedTestModel(): Promise<{ model: ModelSpec; folder: string }> {
  const model = defaultModel();
  const folder = await installedModelFolder(modelFetchSettings(process.env).cacheDir, model);
  if (!folder) throw new Error(`The embedding model ${model.id} is not in the model cache: run npm install (or npm run fetch-model)`);
  return { model, folder };
}
