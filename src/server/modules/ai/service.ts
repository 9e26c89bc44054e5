import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { badParams, tooManyRequests } from '../../lib/errors.js';
import { siteDay } from '../../lib/site-time.js';
import { writeAudit } from '../../support/audit/repo.js';
import type { SessionUser } from '../sessions/service.js';
import { AiCallError, complete, type Endpoint } from './client.js';
import * as repo from './repo.js';
import { open, seal } from './secret.js';

/** What a fresh install shows before an admin saves anything: off, and no key. */
const DEFAULTS = {
  enabled: 0,
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  timeoutMs: 15_000,
  dailyBudget: 100,
} as const;

const today = (app: AppContext) => siteDay(app.now(), app.config.jobs.timeZone);

/** The configuration as the admin may see it: never the key, only whether one is set. */
export async function get(app: AppContext): Promise<Schemas['AiConfig']> {
  const row = await repo.findConfig(app.db);
  const usedToday = await repo.usedOn(app.db, today(app));
  if (!row) return { ...DEFAULTS, apiKeySet: false, usedToday, updatedAt: null };
  return {
    enabled: Number(row.enabled) as 0 | 1,
    baseUrl: row.baseUrl,
    model: row.model,
    timeoutMs: Number(row.timeoutMs),
    dailyBudget: Number(row.dailyBudget),
    apiKeySet: row.apiKeyCipher !== null,
    usedToday,
    updatedAt: Number(row.updatedAt),
  };
}

/** Saves the configuration; a blank key keeps the stored one. The audit row says whether the key changed, not what. */
export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['AiConfigUpdateRequest'],
): Promise<true> {
  const now = app.now();
  const { apiKey } = input;
  // The contract requires each of these; its allOf leaves them optional in the generated type.
  const fields = {
    enabled: input.enabled ?? DEFAULTS.enabled,
    baseUrl: input.baseUrl ?? DEFAULTS.baseUrl,
    model: input.model ?? DEFAULTS.model,
    timeoutMs: input.timeoutMs ?? DEFAULTS.timeoutMs,
    dailyBudget: input.dailyBudget ?? DEFAULTS.dailyBudget,
  };
  await app.db.transaction().execute(async (trx) => {
    const before = await repo.findConfig(trx);
    const keyChanged = apiKey !== undefined && apiKey !== '';
    const apiKeyCipher = keyChanged ? seal(app.config.sessionSecret, apiKey) : (before?.apiKeyCipher ?? null);
    await repo.saveConfig(trx, { id: repo.CONFIG_ID, ...fields, apiKeyCipher, updatedAt: now });
    const view = (row: typeof before) =>
      row && {
        enabled: row.enabled,
        baseUrl: row.baseUrl,
        model: row.model,
        timeoutMs: row.timeoutMs,
        dailyBudget: row.dailyBudget,
      };
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'ai.config',
        targetType: 'ai',
        targetId: repo.CONFIG_ID,
        before: view(before) ?? null,
        after: { ...fields, apiKeyChanged: keyChanged },
      },
      now,
    );
  });
  return true;
}

/** The saved endpoint with its key opened, or the reason it cannot be used. */
async function endpoint(app: AppContext): Promise<{ endpoint: Endpoint; enabled: boolean; budget: number } | string> {
  const row = await repo.findConfig(app.db);
  if (!row?.apiKeyCipher) return '尚未设置 API Key';
  const apiKey = open(app.config.sessionSecret, row.apiKeyCipher);
  if (apiKey === null) return '已保存的 API Key 无法解密（服务器密钥已更换），请重新填写';
  return {
    endpoint: { baseUrl: row.baseUrl, model: row.model, apiKey, timeoutMs: Number(row.timeoutMs) },
    enabled: Number(row.enabled) === 1,
    budget: Number(row.dailyBudget),
  };
}

const BUDGET_SPENT = '今日 AI 请求次数已用完';

/** One real request with the saved configuration (on or off), counted against the day's budget. */
export async function test(app: AppContext): Promise<Schemas['AiTestResult']> {
  const saved = await endpoint(app);
  if (typeof saved === 'string') return { ok: false, message: saved, reply: null };
  if (!(await repo.claimRequest(app.db, today(app), saved.budget)))
    return { ok: false, message: BUDGET_SPENT, reply: null };
  try {
    const reply = await complete(
      saved.endpoint,
      [{ role: 'user', content: '这是一次连接测试，请用一句简短的中文回复。' }],
      app.lookupHost,
    );
    return { ok: true, message: '连接成功', reply };
  } catch (error) {
    if (error instanceof AiCallError) return { ok: false, message: error.message, reply: null };
    throw error;
  }
}

const WHAT: Record<Schemas['AiPolishRequest']['field'], string> = {
  noticeBar: '顶部滚动通知栏的一行文字（不超过 60 字）',
  noticeAnnouncementTitle: '站点公告的标题（不超过 20 字）',
  noticeAnnouncement: '站点公告的正文',
};

/**
 * Drafts or polishes one site text from the admin's own words; nothing is saved (the admin accepts or discards it on
 * the form). Only the site's own announcement texts: the product writes no reports, diaries or check-ins for users.
 */
export async function polish(app: AppContext, input: Schemas['AiPolishRequest']): Promise<Schemas['AiPolishResult']> {
  const saved = await endpoint(app);
  if (typeof saved === 'string') throw badParams(saved);
  if (!saved.enabled) throw badParams('AI 功能未开启');
  if (!(await repo.claimRequest(app.db, today(app), saved.budget))) throw tooManyRequests(BUDGET_SPENT, 3600);
  const system =
    `你是一个中文网站的运营编辑。请把管理员写的${WHAT[input.field]}润色得通顺、简洁、礼貌，` +
    '保持原意和其中的事实（时间、数字、名称），不要编造新信息。只输出润色后的文字，不要解释。';
  try {
    const text = await complete(
      saved.endpoint,
      [
        { role: 'system', content: system },
        { role: 'user', content: input.text },
      ],
      app.lookupHost,
    );
    return { ok: true, message: '已生成', text };
  } catch (error) {
    // The endpoint's own failure is an answer to show, as in test connection, not a failure of this server.
    if (error instanceof AiCallError) return { ok: false, message: error.message, text: null };
    throw error;
  }
}
