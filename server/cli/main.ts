import { CommanderError } from 'commander';
import { CliError, createCli } from './program.ts';
import { loadConfig } from '../config.ts';
import { installedModelFolder } from '../embedding/model-files.ts';
import { modelFetchSettings } from '../embedding/model-fetch.ts';
import { defaultModel } from '../embedding/model-manifest.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from '../engine/ranking/evidence.ts';
import { openStore } from '../store/open-store.ts';
import { storeLocationFromEnv } from '../store/postgres/postgres-config.ts';

/**
 * Entry of `npm run kb -- <command>`: reads the environment (like
 * server/main.ts, the only other reader of `process.env`) and runs the CLI.
 */
try {
  const config = loadConfig(process.env, { abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD });
  // PostgreSQL when DATABASE_URL is set, else the embedded store in KB_DATA_DIR.
  const location = storeLocationFromEnv(process.env, config.dataDir);
  const program = createCli({
    openStore: () => openStore(location),
    tokenTtlCapMinutes: config.tokenTtlCapMinutes,
    ownerEmail: config.ownerEmail,
    abstentionThreshold: config.abstentionThreshold,
    importAllowPrivateAddresses: config.importAllowPrivateAddresses,
    now: Date.now,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    answerEmbedding: async () => {
      if (!config.embedding) return { reason: 'dense retrieval is turned off (KB_EMBEDDING=off)' };
      const model = defaultModel(process.env);
      const folder = await installedModelFolder(modelFetchSettings(process.env).cacheDir, model);
      if (folder === undefined) return { reason: `the embedding model ${model.id} is not in the model cache (npm install, or the first npm start, fetches it)` };
      return { embedding: { model, folder } };
    },
  });
  program.exitOverride();
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
