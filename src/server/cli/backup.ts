import { loadConfig } from '../config/config.js';
import { check } from '../modules/coins/service.js';
import { backupSqlite, verifySqlite } from '../db/sqlite-backup.js';

// `npm run db:backup -- <file>`: an online backup of the embedded database while the server runs, then SQLite's
// integrity check and the ledger check on the copy. One line says how it went; the exit code says it too (0 good,
// 1 a copy that failed its checks or could not be made, 2 a wrong call).
const target = process.argv[2];
const { database } = loadConfig();
if (!target) {
  console.error('用法：npm run db:backup -- <备份文件>');
  process.exit(2);
}
if (database.kind !== 'sqlite') {
  console.error('DATABASE_URL 是 PostgreSQL：请用 pg_dump 备份（见 README 的“备份与恢复”）');
  process.exit(2);
}
try {
  const started = Date.now();
  await backupSqlite(database.path, target);
  const r = await verifySqlite(target, (db) => check({ db }));
  const ok = r.integrity === 'ok' && r.mismatches === 0;
  console.log(
    `${ok ? '备份完成' : '备份有问题'}：${target}，${(r.bytes / 1024 / 1024).toFixed(1)} MB，${r.users} 个账号，` +
      `${r.entries} 条账本记录，完整性 ${r.integrity}，账本核对 ${r.mismatches === 0 ? 'ok' : `${r.mismatches} 个账号不符`}，` +
      `用时 ${((Date.now() - started) / 1000).toFixed(1)} 秒`,
  );
  process.exit(ok ? 0 : 1);
} catch (error) {
  console.error(`备份失败：${(error as Error).message}`);
  process.exit(1);
}
