import { copyText } from '../feedback/copy';
import { useEffect } from 'react';
import { Badge, Button, Input, List, Tag } from 'antd-mobile';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { contractRules } from '../../api/generated/rules.gen';
import { menuFor } from '../app/menu';
import { toast } from '../feedback';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { unreadStore } from '../state/unread';
import { MenuIcon } from './MenuIcon';
import { fitsText } from './rules';
import './home.css';

/** A redeem code: one Idempotency-Key per code tried (a retry of the same code after a lost answer reuses it). */
function RedeemCode() {
  const { register, handleSubmit, setValue, watch } = useForm({ defaultValues: { code: '' } });
  // The UI kit's input answers values, not DOM events: registered by name and set on change (see TransferCoin).
  useEffect(() => {
    register('code', { validate: (v) => fitsText(contractRules.RedeemCodeText, v.trim()) });
  }, [register]);
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; watch re-renders this form
  const code = watch('code');
  const { run, busy } = useOperation('redeemUse');

  const redeem = handleSubmit(
    async ({ code: typed }) => {
      if (busy) return;
      const used = await run({ body: { code: typed.trim() } });
      if (!used.ok) return;
      setValue('code', '');
      toast(w.redeem.used(used.data.coin), 'success');
      await refreshSession();
    },
    () => toast(w.redeem.rule),
  );

  return (
    <List mode="card" header={w.redeem.title} style={{ margin: '0 0 12px' }}>
      <List.Item
        extra={
          <Button
            size="small"
            color="primary"
            loading={busy}
            disabled={busy || code.trim().length === 0}
            onClick={redeem}
          >
            {w.redeem.use}
          </Button>
        }
      >
        <Input
          value={code}
          onChange={(v) => setValue('code', v)}
          onEnterPress={() => void redeem()}
          placeholder={w.redeem.placeholder}
          maxLength={12}
          autoComplete="off"
        />
      </List.Item>
    </List>
  );
}

const copy = copyText;

/**
 * My page: who I am, an agent's invitation code and link with what inviting gives, and the areas my role may use.
 * '退出' is in the header (screen map).
 */
export default function About() {
  const { user, role } = useStore(sessionStore);
  const site = useStore(siteStore);
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
            {w.user.roles[user.userRole]}
          </Tag>
        </p>
      </div>
      <List mode="card" style={{ margin: '0 0 12px' }}>
        <List.Item extra={String(user.coin)} onClick={() => navigate('/coin_detail')}>
          {w.coins.balance}
        </List.Item>
        <List.Item extra={user.email ?? w.user.noEmail} onClick={() => navigate('/bind_email')}>
          {w.user.email}
        </List.Item>
      </List>
      {/* Inviting gives something to an agent only (the rebate), so only an agent is shown the code, with the rule. */}
      {user.userRole === 'agent' && (
        <List mode="card" header={w.user.invite} style={{ margin: '0 0 12px' }}>
          <List.Item>
            <span className="about-invite-rule">{w.user.inviteRule(site?.rebatePercent ?? 0)}</span>
          </List.Item>
          <List.Item extra={user.invitationCode} onClick={() => copy(user.invitationCode)}>
            {w.user.invitationCode}
          </List.Item>
          <List.Item description={inviteLink} onClick={() => copy(inviteLink)}>
            {w.user.inviteLink}
          </List.Item>
        </List>
      )}
      <RedeemCode />
      {menuFor(role, 'my').map((section) => (
        <List key={section.group} mode="card" header={w.menu[section.group]} style={{ margin: '0 0 12px' }}>
          {section.entries.map((screen) => (
            <List.Item
              key={screen.path}
              prefix={<MenuIcon icon={screen.icon} size="small" />}
              onClick={() => navigate(screen.path)}
              extra={
                screen.path === '/notice' && unread > 0 ? <Badge content={w.inbox.unreadBadge(unread)} /> : undefined
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
