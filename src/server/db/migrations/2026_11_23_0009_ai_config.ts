import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The one OpenAI-compatible endpoint (row id 1). The key is stored only as AES-GCM ciphertext (modules/ai/secret.ts).
  await db.schema
    .createTable('ai_config')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('enabled', 'integer', (c) => c.notNull().check(sql`enabled in (0, 1)`))
    .addColumn('base_url', 'varchar(200)', (c) => c.notNull())
    .addColumn('model', 'varchar(100)', (c) => c.notNull())
    .addColumn('api_key_cipher', 'text')
    .addColumn('timeout_ms', 'integer', (c) => c.notNull())
    .addColumn('daily_budget', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Requests counted per site day: the budget is claimed by one conditional update, so concurrent calls cannot exceed it.
  await db.schema
    .createTable('ai_usage')
    .addColumn('day', 'varchar(10)', (c) => c.primaryKey())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ai_usage').execute();
  await db.schema.dropTable('ai_config').execute();
}
