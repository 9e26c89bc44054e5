import { loadConfig } from '../config/config.js';
import { migrate, openDatabase } from './database.js';

// `npm run db:migrate`: applies pending migrations to DATABASE_URL and exits.
const { database } = loadConfig();
const handle = openDatabase(database);
try {
  const applied = await migrate(database, handle);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await handle.close();
}
