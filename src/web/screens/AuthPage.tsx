import type { ReactNode, SyntheticEvent } from 'react';
import { Link } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { PolicyLinks } from './AuthField';
import './auth.css';

interface Props {
  title: string;
  onSubmit: (event: SyntheticEvent<HTMLFormElement>) => void;
  submitting: boolean;
  /** The other auth page: login links to register and back. */
  switchTo: { to: string; label: string } | { onClick: () => void; label: string };
  /** The submit button's words, when they are not the title. */
  submitLabel?: string;
  /** Another way in, under the submit button (使用通行密钥登录). */
  alternative?: ReactNode;
  /** The links to 用户协议 and 隐私政策 under the card (register has them beside its consent box instead). */
  policies?: boolean;
  children: ReactNode;
}

/** The frame-less page of login and register: site name, a card with the fields, the submit button, the other page. */
export function AuthPage({
  title,
  onSubmit,
  submitting,
  switchTo,
  submitLabel,
  alternative,
  policies = true,
  children,
}: Props) {
  const site = useStore(siteStore);
  return (
    <main className="auth-page">
      <h1 className="auth-title">{site?.websiteName || title}</h1>
      <p className="auth-subtitle">{title}</p>
      <form className="auth-card" onSubmit={onSubmit} noValidate>
        {children}
        <div className="auth-actions">
          <button type="submit" className="auth-submit" disabled={submitting} aria-busy={submitting}>
            {submitting ? t.shell.loading : (submitLabel ?? title)}
          </button>
          {alternative}
        </div>
        {'to' in switchTo ? (
          <Link className="auth-switch" to={switchTo.to}>
            {switchTo.label}
          </Link>
        ) : (
          <button type="button" className="auth-switch auth-switch-button" onClick={switchTo.onClick}>
            {switchTo.label}
          </button>
        )}
      </form>
      {policies && (
        <p className="auth-policies">
          <PolicyLinks />
        </p>
      )}
    </main>
  );
}
