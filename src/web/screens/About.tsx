import { Badge, Button, Input, List, Tag } from 'antd-mobile';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { contractRules } from '../../api/generated/rules.gen';
import { menuFor } from '../app/menu';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';
import { unreadStore } from '../state/unread';
import { MenuIcon } from './MenuIcon';
import { fitsText } from './rules';
import './home.css';

/** A redeem code: one Idempotency-Key per code tried (a retry of the same code after a lost answer reuses it). */
function RedeemCode() {
  const { control, handleSubmit, setValue } = useForm({ defaultValues: { code: '' } });
  const code = useWatch({ control, name: 'code' });
  const { run, busy } = useOperation('redeemUse');

  const redeem = handleSubmit(
    async ({ code: typed }) => {
      if (busy) return;
      const used = await run({ body: { code: typed.trim() } });
      if (!used.ok) return;
      setValue('code', '');
      toast(t.redeem.used(used.data.coin), 'success');
      await refreshSession();
    },
    () => toast(t.redeem.rule),
  );

  return (
    <List mode="card" header={t.redeem.title} style={{ margin: '0 0 12px' }}>
      <List.Item
        extra={
          <Button
            size="small"
            color="primary"
            loading={busy}
            disabled={busy || code.trim().length === 0}
            onClick={redeem}
          >
            {t.redeem.use}
          </Button>
        }
      >
        <Controller
          control={control}
          name="code"
          rules={{ validate: (v) => fitsText(contractRules.RedeemCodeText, v.trim()) }}
          render={({ field }) => (
            <Input
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              onEnterPress={() => void redeem()}
              placeholder={t.redeem.placeholder}
              maxLength={12}
              autoComplete="off"
            />
          )}
        />
      </List.Item>
    </List>
  );
}

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t.user.copied);
  } catch {
    toast(text);
  }
}

/** My page: who I am, my invitation link, and the areas my role may use. '退出' is in the header (screen map). */
export default function About() {
  const { user, role } = useStore(sessionStore);
  const navigate = useNavigate();
  // The tab bar keeps it fresh (on every navigation); this entry shows the same count.
  const unread = useStore(unreadStore);
  if (!user) return null;
  const inviteLink = `${window.location.origin}/register?code=${user.invitationCode}`;
  return (
    <div className="app-page">
      <div className="home-hero">
        <h2>{user.userName}</h2>
        <p>
          {user.userAccount} ·{' '}
          <Tag color="#ffffff33" style={{ color: '#fff' }}>
            {t.user.roles[user.userRole]}
          </Tag>
        </p>
      </div>
      <List mode="card" style={{ margin: '0 0 12px' }}>
        <List.Item extra={String(user.coin)} onClick={() => navigate('/coin_detail')}>
          {t.coins.balance}
        </List.Item>
        <List.Item extra={user.invitationCode} onClick={() => copy(user.invitationCode)}>
          {t.user.invitationCode}
        </List.Item>
        <List.Item description={inviteLink} onClick={() => copy(inviteLink)}>
          {t.user.inviteLink}
        </List.Item>
        <List.Item extra={user.email ?? t.user.noEmail} onClick={() => navigate('/bind_email')}>
          {t.user.email}
        </List.Item>
      </List>
      <RedeemCode />
      {menuFor(role, 'my').map((section) => (
        <List key={section.group} mode="card" header={t.menu[section.group]} style={{ margin: '0 0 12px' }}>
          {section.entries.map((screen) => (
            <List.Item
              key={screen.path}
              prefix={<MenuIcon icon={screen.icon} size="small" />}
              onClick={() => navigate(screen.path)}
              extra={
                screen.path === '/notice' && unread > 0 ? <Badge content={t.inbox.unreadBadge(unread)} /> : undefined
              }
            >
              {screen.title}
            </List.Item>
          ))}
        </List>
      ))}
    </div>
  );
}
