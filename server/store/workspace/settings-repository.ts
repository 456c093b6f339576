import type { SqlExecutor } from '../sql-executor.ts';
import type { SettingsRepository } from './workspace.ts';

/** Workspace settings created once (the source-span key, ...). */
export function settingsRepository(sql: SqlExecutor): SettingsRepository {
  return {
    async getOrCreateSetting(key, create) {
      const read = async () => (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]))?.value;
      const existing = await read();
      if (existing !== undefined) return existing;
      // Two processes creating at once: the first insert wins, both read its value.
      await sql.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, create()]);
      return (await read())!;
    },
  };
}
