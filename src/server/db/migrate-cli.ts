import { loadConfig } from '../config.js';
import { migrateToLatest, openDatabase } from './database.js';

// `npm run db:migrate`: applies pending migrations to DATABASE_URL and exits.
const handle = openDatabase(loadConfig().database);
try {
  const applied = await migrateToLatest(handle);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await handle.close();
}
