import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { check } from '../modules/coins/service.js';
import { restoreSqlite, runningServer, verifySqlite } from '../db/sqlite-backup.js';

// `npm run db:restore -- <file>`: puts a backup made by db:backup in the place of DATABASE_URL's database. It refuses
// while a server runs on that database, checks the backup first (integrity and ledger), and keeps the database it
// replaces beside it (`<name>.replaced-<time>`). Exit code 0 restored, 1 refused or failed, 2 a wrong call.
const backup = process.argv[2];
const { database } = loadConfig();
if (!backup) {
  console.error('用法：npm run db:restore -- <备份文件>');
  process.exit(2);
}
if (database.kind !== 'sqlite') {
  console.error('DATABASE_URL 是 PostgreSQL：请用 pg_restore 恢复（见 README 的“备份与恢复”）');
  process.exit(2);
}
const readPid = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined);
const pid = runningServer(database.path, readPid);
if (pid !== undefined) {
  console.error(`服务器（进程 ${pid}）正在使用 ${database.path}：请先停止服务器，再恢复`);
  process.exit(1);
}
try {
  const r = await verifySqlite(backup, (db) => check({ db }));
  if (r.integrity !== 'ok' || r.mismatches !== 0) {
    console.error(`备份没有通过检查（完整性 ${r.integrity}，账本不符 ${r.mismatches} 个账号），未恢复`);
    process.exit(1);
  }
  const kept = await restoreSqlite(backup, database.path, new Date());
  console.log(
    `恢复完成：${database.path}，${r.users} 个账号，${r.entries} 条账本记录` +
      (kept ? `；原来的数据库保留为 ${kept}` : ''),
  );
} catch (error) {
  console.error(`恢复失败：${(error as Error).message}`);
  process.exit(1);
}
